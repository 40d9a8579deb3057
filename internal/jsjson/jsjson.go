// Package jsjson is JSON with JavaScript's semantics, as the ECC memory
// reference engine (Node) writes and reads it: an encoder that writes
// byte-for-byte what JSON.stringify writes and a strict JSON.parse. See
// ecc-conformance §2.5 and ecc-conformance §2.6. The EchoesVault engine
// follows Python's json instead: that is package pyjson.
package jsjson

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/jstext"
)

// The reference serialises with JSON.stringify and parses with JSON.parse.
// encoding/json differs on both sides (HTML escaping, U+2028/2029, sorted
// maps, lone surrogates, case-insensitive field matching), so this file
// holds a small exact implementation of each.

// Object is an ordered JSON object: keys are emitted in slice order, as
// JavaScript emits them in insertion order.
type Object []Field

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any
}

// MarshalCompact encodes v as JSON.stringify(v) does. Supported values:
// nil, bool, int, int64, float64, string, []string, []any, Object and
// values implementing Valuer.
func MarshalCompact(v any) string {
	var b strings.Builder
	encodeValue(&b, v, "", "")
	return b.String()
}

// MarshalPretty encodes v as JSON.stringify(v, null, 2) does.
func MarshalPretty(v any) string {
	var b strings.Builder
	encodeValue(&b, v, "  ", "")
	return b.String()
}

// Valuer lets result types present themselves as ordered objects.
type Valuer interface{ JSONValue() any }

func encodeValue(b *strings.Builder, v any, indent, cur string) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		}
	case string:
		WriteString(b, x)
	case []string:
		arr := make([]any, len(x))
		for i, s := range x {
			arr[i] = s
		}
		encodeArray(b, arr, indent, cur)
	case []any:
		encodeArray(b, x, indent, cur)
	case Object:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		inner := cur + indent
		b.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteByte('\n')
				b.WriteString(inner)
			}
			WriteString(b, f.Key)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			encodeValue(b, f.Value, indent, inner)
		}
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(cur)
		}
		b.WriteByte('}')
	case Valuer:
		encodeValue(b, x.JSONValue(), indent, cur)
	default:
		// Programming error: every caller passes the types listed above.
		panic("jsjson: unsupported JSON value type")
	}
}

func encodeArray(b *strings.Builder, arr []any, indent, cur string) {
	if len(arr) == 0 {
		b.WriteString("[]")
		return
	}
	inner := cur + indent
	b.WriteByte('[')
	for i, v := range arr {
		if i > 0 {
			b.WriteByte(',')
		}
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(inner)
		}
		encodeValue(b, v, indent, inner)
	}
	if indent != "" {
		b.WriteByte('\n')
		b.WriteString(cur)
	}
	b.WriteByte(']')
}

const hexDigits = "0123456789abcdef"

// WriteString escapes exactly what JSON.stringify escapes: quote,
// backslash, C0 controls (short forms where they exist) and lone
// surrogates; everything else is raw.
func WriteString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			// A run of printable ASCII other than " and \ is copied as is.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < utf8.RuneSelf && s[j] != '"' && s[j] != '\\' {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\b':
				b.WriteString(`\b`)
			case '\t':
				b.WriteString(`\t`)
			case '\n':
				b.WriteString(`\n`)
			case '\f':
				b.WriteString(`\f`)
			case '\r':
				b.WriteString(`\r`)
			default:
				if c < 0x20 {
					b.WriteString(`\u00`)
					b.WriteByte(hexDigits[c>>4])
					b.WriteByte(hexDigits[c&0xF])
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		if cu, ok := jstext.LoneSurrogateAt(s, i); ok {
			b.WriteString(`\u`)
			b.WriteByte(hexDigits[cu>>12])
			b.WriteByte(hexDigits[cu>>8&0xF])
			b.WriteByte(hexDigits[cu>>4&0xF])
			b.WriteByte(hexDigits[cu&0xF])
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

var errJSON = errors.New("invalid JSON")

// Parse is a strict JSON.parse: duplicate keys keep the last value,
// \udxxx escapes that do not pair become WTF-8 lone surrogates. Objects
// decode to map[string]any, arrays to []any, numbers to float64.
func Parse(s string) (any, error) {
	p := jsonParser{s: s}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, errJSON
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
}

// maxJSONDepth bounds recursion on hostile input; frontmatter values are
// never nested deeply.
const maxJSONDepth = 512

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth || p.i >= len(p.s) {
		return nil, errJSON
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		obj := map[string]any{}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return obj, nil
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, errJSON
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, errJSON
			}
			p.i++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj[k] = v
			p.ws()
			if p.i >= len(p.s) {
				return nil, errJSON
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == '}' {
				p.i++
				return obj, nil
			}
			return nil, errJSON
		}
	case c == '[':
		p.i++
		arr := []any{}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return arr, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			p.ws()
			if p.i >= len(p.s) {
				return nil, errJSON
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == ']' {
				p.i++
				return arr, nil
			}
			return nil, errJSON
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.lit("true", true)
	case c == 'f':
		return p.lit("false", false)
	case c == 'n':
		return p.lit("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.num()
	}
	return nil, errJSON
}

func (p *jsonParser) lit(word string, v any) (any, error) {
	if strings.HasPrefix(p.s[p.i:], word) {
		p.i += len(word)
		return v, nil
	}
	return nil, errJSON
}

func (p *jsonParser) num() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, errJSON
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, errJSON
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, errJSON
		}
	}
	v, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return v, nil // JSON.parse yields ±Infinity or 0, never an error
		}
		return nil, errJSON
	}
	return v, nil
}

func (p *jsonParser) str() (string, error) {
	p.i++ // opening quote
	// Fast path: a string without escapes is its own bytes up to the
	// closing quote (the slow loop below would copy exactly these).
	for j := p.i; j < len(p.s); j++ {
		c := p.s[j]
		if c == '"' {
			out := p.s[p.i:j]
			p.i = j + 1
			return out, nil
		}
		if c < 0x20 || c == '\\' {
			break
		}
	}
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", errJSON
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", errJSON
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", errJSON
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				cu, ok := p.hex4()
				if !ok {
					return "", errJSON
				}
				r := rune(cu)
				if r >= 0xD800 && r <= 0xDBFF && strings.HasPrefix(p.s[p.i:], `\u`) {
					save := p.i
					p.i += 2
					lo, ok := p.hex4()
					if ok && lo >= 0xDC00 && lo <= 0xDFFF {
						b.WriteRune(utf16.DecodeRune(r, rune(lo)))
						continue
					}
					p.i = save
				}
				if utf16.IsSurrogate(r) {
					jstext.AppendSurrogate(&b, cu)
				} else {
					b.WriteRune(r)
				}
			default:
				return "", errJSON
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func (p *jsonParser) hex4() (uint16, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	var v uint16
	for k := 0; k < 4; k++ {
		d := jstext.DigitValue(rune(p.s[p.i+k]))
		if d < 0 || d > 15 {
			return 0, false
		}
		v = v<<4 | uint16(d)
	}
	p.i += 4
	return v, true
}
