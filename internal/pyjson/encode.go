package pyjson

import (
	"math"
	"strconv"
	"strings"
)

// Pretty returns json.dumps(v, indent=2, ensure_ascii=False) followed by "\n"
// (echoes-conformance §2.8): 2-space indentation, ": " after keys, "," at line ends, [] and {}
// for empty containers.
func Pretty(v Value) string {
	var b strings.Builder
	writeValue(&b, v, true, 0)
	b.WriteByte('\n')
	return b.String()
}

// Compact returns json.dumps(v, ensure_ascii=False): one line, ", " between
// members and ": " after keys, without a trailing newline.
func Compact(v Value) string {
	var b strings.Builder
	writeValue(&b, v, false, 0)
	return b.String()
}

// Quote returns the JSON string literal of s exactly as
// json.dumps(s, ensure_ascii=False) writes it.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	writeQuoted(&b, s)
	return b.String()
}

const hexDigits = "0123456789abcdef"

// writeQuoted writes Quote(s) to b (AppendQuote is the one encoder).
func writeQuoted(b *strings.Builder, s string) {
	var buf [128]byte
	if len(s) <= len(buf)-2 {
		b.Write(AppendQuote(buf[:0], s))
		return
	}
	b.Write(AppendQuote(make([]byte, 0, len(s)+2), s))
}

// AppendQuote appends to dst the JSON string literal of s exactly as
// json.dumps(s, ensure_ascii=False) writes it: only '"', '\\' and the C0
// controls are escaped (short escapes where Python has them, else
// \u00XX). Writers that build their JSON in a byte slice (freshness's
// report writer) call it, so there is one string encoder.
func AppendQuote(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func writeIndent(b *strings.Builder, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString("  ")
	}
}

func writeValue(b *strings.Builder, v Value, pretty bool, depth int) {
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		if v.B {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Number:
		b.WriteString(v.Num.String())
	case String:
		writeQuoted(b, v.S)
	case Array:
		if len(v.Arr) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v.Arr {
			if i > 0 {
				b.WriteByte(',')
				if !pretty {
					b.WriteByte(' ')
				}
			}
			if pretty {
				writeIndent(b, depth+1)
			}
			writeValue(b, e, pretty, depth+1)
		}
		if pretty {
			writeIndent(b, depth)
		}
		b.WriteByte(']')
	case Object:
		if v.Obj.Len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range v.Obj.keys {
			if i > 0 {
				b.WriteByte(',')
				if !pretty {
					b.WriteByte(' ')
				}
			}
			if pretty {
				writeIndent(b, depth+1)
			}
			writeQuoted(b, k)
			b.WriteString(": ")
			writeValue(b, v.Obj.vals[i], pretty, depth+1)
		}
		if pretty {
			writeIndent(b, depth)
		}
		b.WriteByte('}')
	default:
		// Unknown kinds are a programming error; write null like a zero Value.
		b.WriteString("null")
	}
}

// jsonFloat formats f as Python's json module does: float repr, with the
// bare literals NaN, Infinity and -Infinity.
func jsonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return FloatRepr(f)
}

// FloatRepr returns Python's repr(f): shortest round-trip digits, fixed
// notation when the decimal exponent is in [-4, 16), scientific otherwise
// ("1e+16", "1.5e-05"), "nan", "inf" and "-inf" for the special values.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// Shortest digits in scientific form: [-]d[.ddd]e±XX
	s := strconv.FormatFloat(f, 'e', -1, 64)
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	epos := strings.IndexByte(s, 'e')
	mant, expStr := s[:epos], s[epos+1:]
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out strings.Builder
	if neg {
		out.WriteByte('-')
	}
	if exp < -4 || exp >= 16 {
		out.WriteByte(digits[0])
		if len(digits) > 1 {
			out.WriteByte('.')
			out.WriteString(digits[1:])
		}
		out.WriteByte('e')
		if exp < 0 {
			out.WriteByte('-')
			exp = -exp
		} else {
			out.WriteByte('+')
		}
		if exp < 10 {
			out.WriteByte('0')
		}
		out.WriteString(strconv.Itoa(exp))
		return out.String()
	}
	// Fixed notation: the decimal point goes after exp+1 digits.
	point := exp + 1
	switch {
	case point <= 0:
		out.WriteString("0.")
		out.WriteString(strings.Repeat("0", -point))
		out.WriteString(digits)
	case point >= len(digits):
		out.WriteString(digits)
		out.WriteString(strings.Repeat("0", point-len(digits)))
		out.WriteString(".0")
	default:
		out.WriteString(digits[:point])
		out.WriteByte('.')
		out.WriteString(digits[point:])
	}
	return out.String()
}
