package pytext

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// pythonSpace is Python's str.isspace set (echoes-conformance §2.1).
var pythonSpace = []rune{0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
	0x2028, 0x2029, 0x202F, 0x205F, 0x3000}

func TestIsSpaceMatchesPythonSet(t *testing.T) {
	want := map[rune]bool{}
	for _, r := range pythonSpace {
		want[r] = true
	}
	for r := rune(0); r <= 0x10FFFF; r++ {
		if got := IsSpace(r); got != want[r] {
			t.Errorf("IsSpace(%U) = %v, want %v", r, got, want[r])
		}
	}
	// The runes Go's unicode.IsSpace disagrees on, and the famous non-spaces.
	for _, r := range []rune{0x1C, 0x1D, 0x1E, 0x1F} {
		if unicode.IsSpace(r) || !IsSpace(r) {
			t.Errorf("%U: the Go/Python difference is not handled", r)
		}
	}
	for _, r := range []rune{0xFEFF, 0x200B, 0x180E} {
		if IsSpace(r) {
			t.Errorf("%U must not be whitespace", r)
		}
	}
}

func TestStripFields(t *testing.T) {
	s := "\x1c\u3000 a\u00a0b\u2028\u2028c\x1f\u0085"
	if got := Strip(s); got != "a\u00a0b\u2028\u2028c" {
		t.Errorf("Strip = %q", got)
	}
	if got := LStrip(s); got != "a\u00a0b\u2028\u2028c\x1f\u0085" {
		t.Errorf("LStrip = %q", got)
	}
	if got := RStrip(s); got != "\x1c\u3000 a\u00a0b\u2028\u2028c" {
		t.Errorf("RStrip = %q", got)
	}
	if got := Fields(s); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("Fields = %q", got)
	}
	if got := Fields(" \t "); len(got) != 0 {
		t.Errorf("Fields(blank) = %q", got)
	}
	if !IsBlank("\x1c\x1d\x1e\x1f") || IsBlank("\ufeff") || IsBlank("\u200b") {
		t.Error("IsBlank disagrees with Python")
	}
	if Strip("\ufeffx\ufeff") != "\ufeffx\ufeff" {
		t.Error("BOM is not whitespace")
	}
}

func TestSplitLines(t *testing.T) {
	seps := []string{"\r\n", "\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\u0085", "\u2028", "\u2029"}
	for _, sep := range seps {
		got := SplitLines("a" + sep + "b" + sep)
		if !reflect.DeepEqual(got, []string{"a", "b"}) {
			t.Errorf("separator %q: %q", sep, got)
		}
	}
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a", []string{"a"}},
		{"a\x1fb", []string{"a\x1fb"}}, // U+001F is whitespace, not a separator
		{"a\r\r\nb", []string{"a", "", "b"}},
		{"a\n\nb\n", []string{"a", "", "b"}},
		{"\r\n\r\n", []string{"", ""}},
		{"a\u2028\u2029b", []string{"a", "", "b"}},
		{"x\u200bz\ufeff", []string{"x\u200bz\ufeff"}},
	}
	for _, c := range cases {
		if got := SplitLines(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", c.in, got, c.want)
		}
		// NextLine must walk the same lines.
		var walked []string
		for pos := 0; ; {
			line, next, ok := NextLine(c.in, pos)
			if !ok {
				break
			}
			walked = append(walked, line)
			pos = next
		}
		if !reflect.DeepEqual(walked, c.want) {
			t.Errorf("NextLine walk of %q = %q, want %q", c.in, walked, c.want)
		}
	}
}

func TestUniversalNewlinesAndDecodeText(t *testing.T) {
	if got := UniversalNewlines("a\r\nb\rc\n\r\r\n\u2028"); got != "a\nb\nc\n\n\n\u2028" {
		t.Errorf("UniversalNewlines = %q", got)
	}
	got, err := DecodeText([]byte("\xef\xbb\xbf---\r\nx\r"))
	if err != nil || got != "\ufeff---\nx\n" {
		t.Errorf("DecodeText = %q, %v (the BOM is kept)", got, err)
	}
	for _, bad := range []string{"\xff", "a\xc3", "\xed\xa0\x80" /* UTF-8 encoded surrogate */, "\xc0\xaf"} {
		if _, err := DecodeText([]byte(bad)); err != ErrInvalidUTF8 {
			t.Errorf("DecodeText(%q) err = %v, want ErrInvalidUTF8", bad, err)
		}
	}
}

func TestCasefold(t *testing.T) {
	cases := map[string]string{
		"ABC":          "abc",
		"straße":       "strasse",
		"STRASSE":      "strasse",
		"ﬁ":            "fi",
		"ÉCOLE":        "école",
		"Σ":            "σ",
		"ς":            "σ",
		"İ":            "i̇",
		"\u1E9E":       "ss",
		"ǅ":            "ǆ",
		"ŉ":            "ʼn",
		"a\u13A0b":     "a\u13A0b",
		"\u13F5\u13A0": "\u13F5\u13A0",
		"\uAB70":       "\u13A0", // Cherokee small letters fold to the capitals
	}
	for in, want := range cases {
		if got := Casefold(in); got != want {
			t.Errorf("Casefold(%q) = %q, want %q", in, got, want)
		}
	}
	for r := rune(0x13A0); r <= 0x13F5; r++ {
		if got := Casefold("X" + string(r) + "Y"); got != "x"+string(r)+"y" {
			t.Errorf("Casefold changed Cherokee %U: %q", r, got)
		}
	}
}

func TestNFCLenTruncate(t *testing.T) {
	if NFC("e\u0301") != "\u00e9" || NFC("abc") != "abc" {
		t.Error("NFC")
	}
	if Len("é€𝄞") != 3 {
		t.Error("Len counts code points")
	}
	cases := []struct {
		s    string
		n    int
		want string
	}{{"é€𝄞x", 2, "é€"}, {"abc", 5, "abc"}, {"abc", 0, ""}, {"abc", -1, ""}, {"𝄞𝄞", 1, "𝄞"}}
	for _, c := range cases {
		if got := Truncate(c.s, c.n); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestParseInt(t *testing.T) {
	ok := map[string]int{
		"0": 0, " 1_0 ": 10, "+3": 3, "-5": -5, "\t42\n": 42, "1_000_000": 1000000,
		"٣": 3, "１２": 12, "-0": 0, "\u3000 7 \x1c": 7, "007": 7,
		"99999999999999999999999":  int(^uint(0) >> 1),
		"-99999999999999999999999": -int(^uint(0)>>1) - 1,
	}
	for in, want := range ok {
		got, err := ParseInt(in)
		if err != nil || got != want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", " ", "1.5", "1__0", "_1", "1_", "+", "-", "+-1", "1e3", "0x10", "ten", "1 0", "--1", "½", "²"} {
		if _, err := ParseInt(in); err != ErrBadInt {
			t.Errorf("ParseInt(%q) err = %v, want ErrBadInt", in, err)
		}
	}
}

func TestStripUsesWholeSet(t *testing.T) {
	var b strings.Builder
	for _, r := range pythonSpace {
		b.WriteRune(r)
	}
	ws := b.String()
	if got := Strip(ws + "x" + ws); got != "x" {
		t.Errorf("Strip left %q", got)
	}
}

func TestStripPythonSpace(t *testing.T) {
	cases := map[string]string{
		"":                               "",
		" \t\n\r\v\f x \x1c\x1d\x1e\x1f": "x",
		"\u0085\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000a b\u3000": "a b",
		"\u200bx\u200b": "\u200bx\u200b", // ZERO WIDTH SPACE is not whitespace
		"\xffx\xff":     "\xffx\xff",
		"\x00x":         "\x00x",
	}
	for in, want := range cases {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}
