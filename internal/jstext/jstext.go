// Package jstext reproduces the JavaScript (Node) string semantics the ECC
// memory reference engine relies on, where Go's standard library differs:
// the trim / \s set, UTF-16 code-unit lengths and slicing,
// String.prototype.toLowerCase, localeCompare with the ICU root locale and
// Number(string). See ecc-conformance §2.1, ecc-conformance §2.2,
// ecc-conformance §2.3, ecc-conformance §2.4 and ecc-conformance §2.8. The
// EchoesVault engine follows Python's rules instead: that is package pytext.
//
// Strings may carry lone UTF-16 surrogates read from frontmatter \udxxx
// escapes; they are kept as WTF-8 (ED A0..BF xx) so that the JSON encoder
// (package jsjson) can emit the same escape back instead of U+FFFD.
package jstext

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// IsSpace reports whether r is in the JavaScript trim / \s set. Unlike
// unicode.IsSpace it includes U+FEFF and excludes U+0085.
func IsSpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r == 0x20, r == 0xA0, r == 0x1680,
		r >= 0x2000 && r <= 0x200A, r == 0x2028, r == 0x2029, r == 0x202F,
		r == 0x205F, r == 0x3000, r == 0xFEFF:
		return true
	}
	return false
}

// Trim is String.prototype.trim.
func Trim(s string) string { return strings.TrimFunc(s, IsSpace) }

// Units decodes s (UTF-8 or WTF-8) into UTF-16 code units.
func Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if cu, ok := LoneSurrogateAt(s, i); ok {
			out = append(out, cu)
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			a, b := utf16.EncodeRune(r)
			out = append(out, uint16(a), uint16(b))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

// LoneSurrogateAt reports a WTF-8 encoded surrogate at s[i:].
func LoneSurrogateAt(s string, i int) (uint16, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return uint16(0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F)), true
	}
	return 0, false
}

// FromUnits encodes UTF-16 code units back to a string, writing unpaired
// surrogates as WTF-8 so that slicing through a pair stays representable.
func FromUnits(u []uint16) string {
	var b strings.Builder
	b.Grow(len(u))
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		if utf16.IsSurrogate(c) {
			if c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] <= 0xDFFF {
				b.WriteRune(utf16.DecodeRune(c, rune(u[i+1])))
				i++
				continue
			}
			AppendSurrogate(&b, uint16(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func AppendSurrogate(b *strings.Builder, cu uint16) {
	b.WriteByte(0xED)
	b.WriteByte(0x80 | byte(cu>>6)&0x3F)
	b.WriteByte(0x80 | byte(cu)&0x3F)
}

// UnitLen is the JavaScript .length of s (UTF-16 code units).
func UnitLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if _, ok := LoneSurrogateAt(s, i); ok {
			n++
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// HasLoneSurrogate reports WTF-8 surrogates (or other invalid UTF-8) in s.
func HasLoneSurrogate(s string) bool { return !utf8.ValidString(s) }

// ReplaceSurrogates turns WTF-8 surrogates into U+FFFD, as a UTF-8 encoder
// (a terminal write) does.
func ReplaceSurrogates(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// lowerCaser maps without x/text's final-sigma handling (every Σ becomes
// σ): ToLower decides each capital sigma itself (see finalSigma), because
// x/text's rule differs from ICU's (ecc-conformance §2.3).
var lowerCaser = sync.Pool{New: func() any {
	c := cases.Lower(language.Und, cases.HandleFinalSigma(false))
	return &c
}}

// ToLower is String.prototype.toLowerCase (full Unicode mappings,
// including İ -> i̇ and final sigma), ecc-conformance §2.3.
//
// In the root locale every lowercase mapping is context-free except
// U+03A3 Σ, whose Final_Sigma condition (SpecialCasing.txt) picks ς or σ.
// So the string is mapped with every Σ as σ, and each Σ is then decided
// from its neighbours in the original string, as ICU's u_strToLower (which
// V8 uses) does. Only Σ and σ lower to σ, and mappings keep their order,
// so the n-th σ of the result comes from the n-th Σ or σ of s; ς has the
// same UTF-8 length as σ, so the fix is done in place.
func ToLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	c := lowerCaser.Get().(*cases.Caser)
	lower := c.String(s)
	lowerCaser.Put(c)
	if !strings.Contains(s, capitalSigma) {
		return lower
	}
	b := []byte(lower)
	o := 0 // where to look for the next σ in b
	for i := 0; i < len(s); {
		if s[i] != 0xCE && s[i] != 0xCF || i+1 >= len(s) {
			i++
			continue
		}
		capital := s[i] == 0xCE && s[i+1] == 0xA3
		if !capital && (s[i] != 0xCF || s[i+1] != 0x83) {
			i++
			continue
		}
		k := bytes.Index(b[o:], smallSigma)
		if k < 0 {
			break // cannot happen: see above, and TestOnlySigmasLowerToSigma
		}
		j := o + k
		o = j + len(smallSigma)
		if capital && finalSigma(s, i) {
			b[j+1] = 0x82 // σ (CF 83) -> ς (CF 82)
		}
		i += 2
	}
	return string(b)
}

var smallSigma = []byte("σ")

const capitalSigma = "Σ"

// finalSigma reports the Final_Sigma condition for the Σ at s[i:] the way
// ICU evaluates it (ucase.cpp, isPrecededByCasedLetter and
// isFollowedByCasedLetter): walking away from Σ, case-ignorable characters
// are skipped and the first other character decides, so Σ is final when
// that character before it is cased and the one after it is not (or the
// string ends). ICU tests Case_Ignorable before Cased, so a character that
// is both (U+02B0 ʰ, U+0345, U+1D2C ᴬ) is skipped: "ʰΣ" lowers to "ʰσ",
// where a literal reading of SpecialCasing.txt's regular expression would
// give ς. Lone surrogates (WTF-8) and invalid bytes are neither cased nor
// ignorable. Each walk stops at the nearest other Σ at the latest, so a
// string costs linear time whatever its sigmas.
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if n == 1 && r == utf8.RuneError {
			break
		}
		if IsCaseIgnorable(r) {
			continue
		}
		before = IsCased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + len(capitalSigma); j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		j += n
		if n == 1 && r == utf8.RuneError {
			return true
		}
		if IsCaseIgnorable(r) {
			continue
		}
		return !IsCased(r)
	}
	return true
}

// IsCased is the Unicode Cased property (DerivedCoreProperties.txt):
// Lowercase (Ll + Other_Lowercase), Uppercase (Lu + Other_Uppercase) or Lt.
func IsCased(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	if greekLetter(r) {
		return true
	}
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// greekLetter is a fast path for the neighbours of a Σ: U+0391–U+03CE
// (less the unassigned U+03A2) are the Greek capital and small letters,
// Lu or Ll, so cased and not case-ignorable; the tables are binary
// searches.
func greekLetter(r rune) bool { return 0x0391 <= r && r <= 0x03CE && r != 0x03A2 }

// IsCaseIgnorable is the Unicode Case_Ignorable property
// (DerivedCoreProperties.txt): general category Mn, Me, Cf, Lm or Sk, or
// Word_Break MidLetter, MidNumLet or Single_Quote. Go's unicode package has
// no Word_Break tables; those three values hold the few code points listed
// here (WordBreakProperty.txt, unchanged since Unicode 11).
func IsCaseIgnorable(r rune) bool {
	switch r {
	// Single_Quote, MidNumLet, MidLetter.
	case 0x0027,
		0x002E, 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E,
		0x003A, 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2027, 0xFE13, 0xFE55, 0xFF1A:
		return true
	}
	if r < 0x80 {
		return r == '^' || r == '`' // Sk; ASCII has no Mn, Me, Cf or Lm
	}
	if greekLetter(r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

var (
	collatorMu sync.Mutex
	// collator is built on first use: collate.New loads the root tables,
	// which every process would pay at init otherwise (issue 19).
	collator = sync.OnceValue(func() *collate.Collator { return collate.New(language.Und) })
)

// slugRank orders the characters of [a-z0-9._-] as ICU root collation does
// at primary strength: _ < - < . < digits < letters. 0 means "not a slug
// character".
var slugRank = func() [256]byte {
	var t [256]byte
	t['_'], t['-'], t['.'] = 1, 2, 3
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(4 + c - '0')
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(14 + c - 'a')
	}
	return t
}()

// SlugRank is c's rank in that order, or 0 when c is not a slug character.
func SlugRank(c byte) byte { return slugRank[c] }

// LocaleCompare is JavaScript's String.prototype.localeCompare with the ICU
// root locale. Ids, slugs and kind directories take an exact fast path;
// everything else goes through x/text collation.
func LocaleCompare(a, b string) int {
	if r, ok := slugCompare(a, b); ok {
		return r
	}
	collatorMu.Lock()
	defer collatorMu.Unlock()
	return collator().CompareString(a, b)
}

func slugCompare(a, b string) (int, bool) {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ra, rb := slugRank[a[i]], slugRank[b[i]]
		if ra == 0 || rb == 0 {
			return 0, false
		}
		if ra != rb {
			if ra < rb {
				return -1, true
			}
			return 1, true
		}
	}
	for _, rest := range []string{a[n:], b[n:]} {
		for i := 0; i < len(rest); i++ {
			if slugRank[rest[i]] == 0 {
				return 0, false
			}
		}
	}
	switch {
	case len(a) < len(b):
		return -1, true
	case len(a) > len(b):
		return 1, true
	}
	return 0, true
}

// Number is JavaScript Number(string).
func Number(s string) float64 {
	s = Trim(s)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			v := 0.0
			for _, c := range s[2:] {
				d := DigitValue(c)
				if d < 0 || d >= base {
					return math.NaN()
				}
				v = v*float64(base) + float64(d)
			}
			return v
		}
	}
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	if body == "Infinity" {
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	// Go's ParseFloat accepts forms JavaScript does not (hex floats,
	// underscores, "inf", "nan"); allow only the decimal grammar.
	seenDigit := false
	for _, c := range body {
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
		default:
			return math.NaN()
		}
	}
	if !seenDigit {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v
		}
		return math.NaN()
	}
	return v
}

func DigitValue(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}
