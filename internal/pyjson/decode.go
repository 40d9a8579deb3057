package pyjson

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxIntDigits is Python's default int_max_str_digits: json.loads raises
// ValueError for integer literals with more digits.
const MaxIntDigits = 4300

// MaxDepth is the deepest array/object nesting Decode accepts. Python's limit
// comes from its recursion limit (about 990 levels at top level, less when
// json.loads is called from deeper frames); nothing legitimate comes close.
const MaxDepth = 900

// ErrInvalidUTF8 is returned by Decode for input that is not valid UTF-8.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// SyntaxError is a decoding error positioned like Python's JSONDecodeError.
// Its Error text is "<Msg>: line <Line> column <Col> (char <Pos>)".
type SyntaxError struct {
	Msg  string // e.g. "Expecting value"
	Pos  int    // offset in code points
	Line int    // 1-based line
	Col  int    // 1-based column, in code points
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Col, e.Pos)
}

// LoneSurrogateError reports a \ud800-style escape that is not part of a
// surrogate pair. Python would keep it in the string; git-echoes refuses it.
type LoneSurrogateError struct {
	SyntaxError
	Code rune // the surrogate code unit, 0xD800–0xDFFF
}

// Decode parses text with Python json.loads semantics (echoes-conformance §2.9): NaN, Infinity
// and -Infinity are accepted, duplicate keys keep their first position and
// take the last value, raw control characters inside strings are rejected, a
// leading U+FEFF is an error, whitespace between tokens is only space, tab,
// LF and CR, and trailing data is an error ("Extra data").
//
// Deviation from Python: lone surrogate escapes are rejected with a
// *LoneSurrogateError (message contains "lone surrogate") instead of being
// stored; when the document also has a syntax error, the syntax error (which
// Python would report) is returned instead.
//
// With a *LoneSurrogateError the decoded value is returned as well, each
// lone surrogate replaced by U+FFFD; with any other error it is the zero Value.
//
// Errors are *SyntaxError (Python's wording and position), *LoneSurrogateError,
// ErrInvalidUTF8, or a plain error for Python's ValueError/RecursionError
// cases (integer literals over MaxIntDigits digits, nesting over MaxDepth).
func Decode(text string) (Value, error) {
	if !utf8.ValidString(text) {
		return Value{}, ErrInvalidUTF8
	}
	d := &decoder{s: text}
	if strings.HasPrefix(text, "\ufeff") {
		return Value{}, d.syntax("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
	}
	v, end, err := d.value(d.skipWS(0), 0)
	if err != nil {
		return Value{}, err
	}
	end = d.skipWS(end)
	if end != len(text) {
		return Value{}, d.syntax("Extra data", end)
	}
	if d.lone != nil {
		// The value is returned too (each lone surrogate decoded as
		// U+FFFD) for callers that, like Python, accept such strings
		// without ever writing them.
		return v, d.lone
	}
	return v, nil
}

type decoder struct {
	s    string
	lone *LoneSurrogateError // first lone surrogate seen (deferred)
}

// position converts a byte offset into Python's (char, line, column).
func (d *decoder) position(off int) (pos, line, col int) {
	prefix := d.s[:off]
	pos = utf8.RuneCountInString(prefix)
	line = strings.Count(prefix, "\n") + 1
	if nl := strings.LastIndexByte(prefix, '\n'); nl >= 0 {
		col = pos - utf8.RuneCountInString(prefix[:nl])
	} else {
		col = pos + 1
	}
	return pos, line, col
}

func (d *decoder) syntax(msg string, off int) *SyntaxError {
	pos, line, col := d.position(off)
	return &SyntaxError{Msg: msg, Pos: pos, Line: line, Col: col}
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *decoder) skipWS(i int) int {
	for i < len(d.s) && isWS(d.s[i]) {
		i++
	}
	return i
}

// value scans one JSON value at byte offset i (no leading whitespace
// skipping, like Python's scan_once) and returns it with the offset after it.
func (d *decoder) value(i, depth int) (Value, int, error) {
	s := d.s
	if i >= len(s) {
		return Value{}, i, d.syntax("Expecting value", i)
	}
	switch c := s[i]; c {
	case '"':
		str, end, err := d.str(i + 1)
		if err != nil {
			return Value{}, end, err
		}
		return Str(str), end, nil
	case '{':
		if depth >= MaxDepth {
			return Value{}, i, errors.New("maximum recursion depth exceeded while decoding a JSON object from a unicode string")
		}
		return d.object(i+1, depth+1)
	case '[':
		if depth >= MaxDepth {
			return Value{}, i, errors.New("maximum recursion depth exceeded while decoding a JSON array from a unicode string")
		}
		return d.array(i+1, depth+1)
	case 'n':
		if strings.HasPrefix(s[i:], "null") {
			return NullValue(), i + 4, nil
		}
	case 't':
		if strings.HasPrefix(s[i:], "true") {
			return Boolean(true), i + 4, nil
		}
	case 'f':
		if strings.HasPrefix(s[i:], "false") {
			return Boolean(false), i + 5, nil
		}
	case 'N':
		if strings.HasPrefix(s[i:], "NaN") {
			return Float(math.NaN()), i + 3, nil
		}
	case 'I':
		if strings.HasPrefix(s[i:], "Infinity") {
			return Float(math.Inf(1)), i + 8, nil
		}
	case '-':
		if strings.HasPrefix(s[i:], "-Infinity") {
			return Float(math.Inf(-1)), i + 9, nil
		}
		return d.number(i)
	default:
		if c >= '0' && c <= '9' {
			return d.number(i)
		}
	}
	return Value{}, i, d.syntax("Expecting value", i)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number follows CPython's _match_number_unicode: -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?
// with backtracking over an incomplete fraction or exponent.
func (d *decoder) number(start int) (Value, int, error) {
	s := d.s
	i := start
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	case i < len(s) && s[i] == '0':
		i++
	default:
		return Value{}, start, d.syntax("Expecting value", start)
	}
	isFloat := false
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		isFloat = true
		i += 2
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j+1 < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j {
			isFloat = true
			i = k
		}
	}
	text := s[start:i]
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return Value{}, start, d.syntax("Expecting value", start)
		}
		return Float(f), i, nil
	}
	digits := len(text)
	if text[0] == '-' {
		digits--
	}
	if digits > MaxIntDigits {
		return Value{}, start, fmt.Errorf("Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", MaxIntDigits, digits)
	}
	n, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return Value{}, start, d.syntax("Expecting value", start)
	}
	return Value{Kind: Number, Num: Num{IsInt: true, I: n}}, i, nil
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// hex4 decodes the four hex digits at s[i:i+4], or returns -1.
func (d *decoder) hex4(i int) rune {
	if i+4 > len(d.s) {
		return -1
	}
	var r rune
	for k := i; k < i+4; k++ {
		h := hexVal(d.s[k])
		if h < 0 {
			return -1
		}
		r = r<<4 | h
	}
	return r
}

// str follows CPython's scanstring_unicode. i is the offset just after the
// opening quote; it returns the offset just after the closing quote.
func (d *decoder) str(i int) (string, int, error) {
	s := d.s
	begin := i - 1
	var b strings.Builder
	chunk := i
	for {
		j := chunk
		for j < len(s) && s[j] != '"' && s[j] != '\\' {
			if s[j] < 0x20 {
				return "", j, d.syntax("Invalid control character at", j)
			}
			j++
		}
		if j >= len(s) {
			return "", j, d.syntax("Unterminated string starting at", begin)
		}
		if s[j] == '"' {
			if b.Len() == 0 {
				return s[chunk:j], j + 1, nil
			}
			b.WriteString(s[chunk:j])
			return b.String(), j + 1, nil
		}
		b.WriteString(s[chunk:j])
		// s[j] == '\\'
		j++
		if j >= len(s) {
			return "", j, d.syntax("Unterminated string starting at", begin)
		}
		if s[j] != 'u' {
			switch s[j] {
			case '"', '\\', '/':
				b.WriteByte(s[j])
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
			default:
				return "", j, d.syntax("Invalid \\escape", j-1)
			}
			chunk = j + 1
			continue
		}
		// \uXXXX at s[j-1:j+5]; Python also requires one more character after it.
		u := j
		r := d.hex4(u + 1)
		end := u + 5
		if r < 0 || end >= len(s) {
			return "", u, d.syntax("Invalid \\uXXXX escape", u)
		}
		if utf16.IsSurrogate(r) {
			paired := false
			if r < 0xdc00 && end+6 < len(s) && s[end] == '\\' && s[end+1] == 'u' {
				if r2 := d.hex4(end + 2); r2 >= 0xdc00 && r2 <= 0xdfff {
					r = utf16.DecodeRune(r, r2)
					end += 6
					paired = true
				}
			}
			if !paired {
				if d.lone == nil {
					pos, line, col := d.position(u - 1)
					d.lone = &LoneSurrogateError{
						SyntaxError: SyntaxError{
							Msg: fmt.Sprintf("Unsupported lone surrogate escape \\u%04x (lone surrogates are refused)", r),
							Pos: pos, Line: line, Col: col,
						},
						Code: r,
					}
				}
				r = utf8.RuneError
			}
		}
		b.WriteRune(r)
		chunk = end
	}
}

func (d *decoder) object(i, depth int) (Value, int, error) {
	s := d.s
	obj := NewObj()
	i = d.skipWS(i)
	if i < len(s) && s[i] == '}' {
		return ObjectValue(obj), i + 1, nil
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return Value{}, i, d.syntax("Expecting property name enclosed in double quotes", i)
		}
		key, next, err := d.str(i + 1)
		if err != nil {
			return Value{}, next, err
		}
		i = d.skipWS(next)
		if i >= len(s) || s[i] != ':' {
			return Value{}, i, d.syntax("Expecting ':' delimiter", i)
		}
		i = d.skipWS(i + 1)
		v, next, err := d.value(i, depth)
		if err != nil {
			return Value{}, next, err
		}
		obj.Set(key, v)
		i = d.skipWS(next)
		if i < len(s) && s[i] == '}' {
			return ObjectValue(obj), i + 1, nil
		}
		if i >= len(s) || s[i] != ',' {
			return Value{}, i, d.syntax("Expecting ',' delimiter", i)
		}
		i = d.skipWS(i + 1)
	}
}

func (d *decoder) array(i, depth int) (Value, int, error) {
	s := d.s
	arr := []Value{}
	i = d.skipWS(i)
	if i < len(s) && s[i] == ']' {
		return Arr(arr...), i + 1, nil
	}
	for {
		v, next, err := d.value(i, depth)
		if err != nil {
			return Value{}, next, err
		}
		arr = append(arr, v)
		i = d.skipWS(next)
		if i < len(s) && s[i] == ']' {
			return Arr(arr...), i + 1, nil
		}
		if i >= len(s) || s[i] != ',' {
			return Value{}, i, d.syntax("Expecting ',' delimiter", i)
		}
		i = d.skipWS(i + 1)
	}
}
