// Package pytext reproduces the Python 3 string semantics that the
// EchoesVault reference engine relies on (str.strip, str.split, splitlines,
// casefold, universal-newline reads, int()), where Go's standard library
// differs. Every byte the engine compares or writes goes through these.
// See echoes-conformance §2.1 to echoes-conformance §2.5. The ECC memory
// vault follows JavaScript's string rules instead: that is package jstext.
package pytext

import (
	"errors"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// IsSpace reports whether r is whitespace for Python's str.isspace, str.strip
// and the re module's \s. Unlike unicode.IsSpace it includes U+001C..U+001F.
func IsSpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r >= 0x1C && r <= 0x20:
		return true
	case r < 0x80:
		return false
	}
	switch r {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// Strip removes Python whitespace from both ends of s.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// LStrip removes Python whitespace from the start of s.
func LStrip(s string) string { return strings.TrimLeftFunc(s, IsSpace) }

// RStrip removes Python whitespace from the end of s.
func RStrip(s string) string { return strings.TrimRightFunc(s, IsSpace) }

// IsBlank reports whether s is empty after Strip.
func IsBlank(s string) bool { return Strip(s) == "" }

// Fields splits s on runs of Python whitespace, like str.split() without
// arguments.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// isLineBreak reports the single-rune line separators of str.splitlines.
// "\r\n" is handled by the caller as one separator.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// SplitLines splits s like Python's str.splitlines(): eleven separators,
// "\r\n" counting as one, no final empty line after a trailing separator.
func SplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isLineBreak(r) {
			i += size
			continue
		}
		lines = append(lines, s[start:i])
		i += size
		if r == '\r' && i < len(s) && s[i] == '\n' {
			i++
		}
		start = i
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// UniversalNewlines converts "\r\n" and then any remaining "\r" to "\n", as
// Python's text-mode reads do.
func UniversalNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// ErrInvalidUTF8 is returned by DecodeText for bytes that are not strict UTF-8.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// DecodeText reads bytes the way Python's open(..., encoding="utf-8") does in
// text mode: strict UTF-8, then universal newlines. A leading BOM is kept.
func DecodeText(b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", ErrInvalidUTF8
	}
	return UniversalNewlines(string(b)), nil
}

// Casefold is Python's str.casefold. x/text's Fold agrees with Python on
// every code point except the Cherokee capital letters U+13A0..U+13F5, which
// Python leaves unchanged; those runs are copied through untouched.
func Casefold(s string) string {
	if isASCII(s) {
		return asciiLower(s)
	}
	// A cases.Caser keeps state and must not be shared between goroutines,
	// so each call makes its own (cheap; nothing is built at init, issue 19).
	folder := cases.Fold()
	var b strings.Builder
	seg := 0
	for i, r := range s {
		if r >= 0x13A0 && r <= 0x13F5 {
			b.WriteString(folder.String(s[seg:i]))
			b.WriteRune(r)
			seg = i + utf8.RuneLen(r)
		}
	}
	b.WriteString(folder.String(s[seg:]))
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// NFC returns the Unicode NFC normalization of s.
func NFC(s string) string {
	if isASCII(s) {
		return s
	}
	return norm.NFC.String(s)
}

// Len counts code points, as Python's len() does on str.
func Len(s string) int { return utf8.RuneCountInString(s) }

// Truncate returns the first n code points of s (s[:n] in Python).
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// ErrBadInt is returned by ParseInt for text that Python's int() rejects.
var ErrBadInt = errors.New("invalid literal for int() with base 10")

// ParseInt parses s with the syntax of Python's int(str): surrounding
// whitespace, an optional sign, decimal digits (any Unicode Nd digit) with
// single underscores allowed between digits. Values beyond the int range are
// saturated, which is harmless because every caller clamps the result.
func ParseInt(s string) (int, error) {
	s = Strip(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, ErrBadInt
	}
	var digits strings.Builder
	prevUnderscore := true // a leading underscore is invalid
	for _, r := range s {
		if r == '_' {
			if prevUnderscore {
				return 0, ErrBadInt
			}
			prevUnderscore = true
			continue
		}
		if !unicode.IsDigit(r) {
			return 0, ErrBadInt
		}
		digits.WriteByte(byte('0' + digitValue(r)))
		prevUnderscore = false
	}
	if prevUnderscore {
		return 0, ErrBadInt
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	if !ok {
		return 0, ErrBadInt
	}
	if neg {
		n.Neg(n)
	}
	const maxInt = int(^uint(0) >> 1)
	switch {
	case n.IsInt64() && int64(int(n.Int64())) == n.Int64():
		return int(n.Int64()), nil
	case n.Sign() < 0:
		return -maxInt - 1, nil
	default:
		return maxInt, nil
	}
}

// digitValue returns the decimal value of a Unicode Nd digit. Nd digits are
// assigned in runs of ten (some runs adjacent, as in the mathematical
// alphanumerics) whose first code point has value 0.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	first := r
	for unicode.IsDigit(first - 1) {
		first--
	}
	return int(r-first) % 10
}

// NextLine returns the line of s starting at byte offset i under splitlines
// rules and the offset of the following line; ok is false at the end of s.
// It lets scanners stop early instead of splitting a whole document.
func NextLine(s string, i int) (line string, next int, ok bool) {
	if i >= len(s) {
		return "", len(s), false
	}
	for j := i; j < len(s); {
		c := s[j]
		if c < utf8.RuneSelf {
			switch c {
			case '\n', 0x0B, 0x0C, 0x1C, 0x1D, 0x1E:
				return s[i:j], j + 1, true
			case '\r':
				if j+1 < len(s) && s[j+1] == '\n' {
					return s[i:j], j + 2, true
				}
				return s[i:j], j + 1, true
			}
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if r == 0x85 || r == 0x2028 || r == 0x2029 {
			return s[i:j], j + size, true
		}
		j += size
	}
	return s[i:], len(s), true
}
