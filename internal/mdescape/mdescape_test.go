package mdescape

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, 42", "plain text, 42"},
		{"ping @octo-org/team", "ping &#64;octo-org/team"},
		{"a | b", "a \\| b"},
		{"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
		{"&amp;", "&amp;amp;"},
		{"two\nlines\r\n\tand  tabs", "two lines and tabs"},
		{"`code` *em* _em_ ~~del~~", "&#96;code&#96; \\*em\\* \\_em\\_ \\~\\~del\\~\\~"},
		{"[text](javascript:alert(1))", "\\[text\\](javascript:alert(1))"},
		{"# heading", "&#35; heading"},
		{`back\slash`, `back\\slash`},
		{"  leading and trailing  ", "leading and trailing"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCellCutsBeforeEscaping: the cut is made on the text, so an escape
// is never split, and the text is cut at CellLimit code points.
func TestCellCutsBeforeEscaping(t *testing.T) {
	long := strings.Repeat("é", CellLimit-1) + "@@@"
	got := Cell(long)
	want := strings.Repeat("é", CellLimit-1) + "&#64;"
	if got != want {
		t.Fatalf("Cell cut: got %q (%d code points), want %q", got, utf8.RuneCountInString(got), want)
	}
	if Cell("a|b") != Escape("a|b") {
		t.Fatal("a short Cell differs from Escape")
	}
	if got := Code("x`y"); got != "<code>x&#96;y</code>" {
		t.Fatalf("Code = %q", got)
	}
}

// FuzzEscape: whatever the text, the result is one line and holds no
// character that starts markup unescaped.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "@team", "a|b", "<b>", "x\ny", "\\|", "&#64;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if strings.ContainsAny(out, "\n\r<>@`") {
			t.Fatalf("Escape(%q) = %q keeps a line break or markup", s, out)
		}
		for i := 0; i < len(out); i++ {
			switch out[i] {
			case '|', '*', '_', '[', ']', '~':
				// Escaped: an odd run of backslashes before it.
				n := 0
				for j := i - 1; j >= 0 && out[j] == '\\'; j-- {
					n++
				}
				if n%2 == 0 {
					t.Fatalf("Escape(%q) = %q: %q at %d is not escaped", s, out, out[i], i)
				}
			}
		}
	})
}
