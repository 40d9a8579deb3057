package pyjson

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repr returns Python's repr of the decoded value (echoes-conformance §2.6): None, True, False,
// integers in decimal, floats in float repr (nan, inf, -inf included), lists
// as [a, b] and dicts as {'k': v, 'k2': w}.
func Repr(v Value) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v Value) {
	switch v.Kind {
	case Null:
		b.WriteString("None")
	case Bool:
		if v.B {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case Number:
		if v.Num.IsInt {
			b.WriteString(v.Num.String())
		} else {
			b.WriteString(FloatRepr(v.Num.F))
		}
	case String:
		b.WriteString(ReprString(v.S))
	case Array:
		b.WriteByte('[')
		for i, e := range v.Arr {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		if v.Obj != nil {
			for i, k := range v.Obj.keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(ReprString(k))
				b.WriteString(": ")
				writeRepr(b, v.Obj.vals[i])
			}
		}
		b.WriteByte('}')
	default:
		b.WriteString("None")
	}
}

// IsPrintable reports whether Python's str.isprintable() holds for r: r is
// not in the categories Cc, Cf, Cs, Co, Cn, Zl, Zp, or Zs other than U+0020.
// (Go's tables may be a newer Unicode version than the reference's Python.)
func IsPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	if r < 0x7f {
		return r > 0x20
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// ReprString returns Python's repr of the str s (echoes-conformance §2.6). Invalid UTF-8 bytes
// are rendered as U+FFFD.
func ReprString(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case IsPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			writeHex(&b, r, 2)
		case r <= 0xffff:
			b.WriteString(`\u`)
			writeHex(&b, r, 4)
		case r <= utf8.MaxRune:
			b.WriteString(`\U`)
			writeHex(&b, r, 8)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func writeHex(b *strings.Builder, r rune, n int) {
	for i := n - 1; i >= 0; i-- {
		b.WriteByte(hexDigits[(r>>(4*uint(i)))&0xf])
	}
}
