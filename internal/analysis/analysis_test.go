package analysis

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func stems(text string) []string {
	var out []string
	for _, c := range Analyze(text) {
		out = append(out, c.Stems...)
	}
	return out
}

func wholes(text string) []string {
	var out []string
	for _, c := range Analyze(text) {
		if c.Whole != "" {
			out = append(out, c.Whole)
		}
	}
	return out
}

func TestAnalyze(t *testing.T) {
	for _, tc := range []struct {
		in            string
		stems, wholes []string
	}{
		{"retries retrying retried retry", []string{"retri", "retri", "retri", "retri"}, nil},
		{"rate-limit", []string{"rate", "limit"}, []string{"ratelimit"}},
		{"rate limit", []string{"rate", "limit"}, nil},
		{"RateLimit", []string{"rate", "limit"}, []string{"ratelimit"}},
		{"rate_limit", []string{"rate", "limit"}, []string{"ratelimit"}},
		{"parseConfig", []string{"pars", "config"}, []string{"parseconfig"}},
		{"HTTPServer", []string{"http", "server"}, []string{"httpserver"}},
		{"max_retries", []string{"max", "retri"}, []string{"maxretries"}},
		{"v2 utf8", []string{"v2", "utf8"}, nil},
		{"café CAFÉ cafe\u0301", []string{"cafe", "cafe", "cafe"}, nil},
		{"Zürich naïve résumé", []string{"zurich", "naiv", "resum"}, nil},
		{"ﬁle ＡＰＩ", []string{"file", "api"}, nil},
		{"Straße", []string{"strass"}, nil},
		{"(see: foo, bar!)", []string{"see", "foo", "bar"}, nil},
		{"--flag -x", []string{"flag", "x"}, nil},
		{"a.b/c", []string{"a", "b", "c"}, []string{"abc"}},
		{"日本語 テキスト", []string{"日本語", "テキスト"}, nil},
	} {
		if got := stems(tc.in); !slices.Equal(got, tc.stems) {
			t.Errorf("%q: stems %q, want %q", tc.in, got, tc.stems)
		}
		if got := wholes(tc.in); !slices.Equal(got, tc.wholes) {
			t.Errorf("%q: wholes %q, want %q", tc.in, got, tc.wholes)
		}
	}
}

func TestLines(t *testing.T) {
	cs := Analyze("one\ntwo\r\nthree\rfour")
	var lines []int
	for _, c := range cs {
		lines = append(lines, c.Line)
	}
	if !slices.Equal(lines, []int{1, 2, 3, 4}) {
		t.Errorf("lines %v", lines)
	}
}

func TestWordBound(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, c := range Analyze(long + " " + strings.Repeat("ab-", 50) + "c") {
		for _, s := range append(append([]string{c.Whole}, c.Surfaces...), c.Stems...) {
			if len(s) > MaxWordBytes || !utf8.ValidString(s) {
				t.Errorf("term %q: %d bytes", s, len(s))
			}
		}
	}
}

// isTerm: a term never holds an ASCII character other than a letter or
// digit, so FTS5's ascii tokenizer never splits it, and it is folded.
func isTerm(s string) bool {
	if s == "" || len(s) > MaxWordBytes || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf && !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// FuzzAnalyze: every term is a valid term, folding is idempotent, and the
// analysis of a term is the term itself (what the index stores is what a
// query of the same word looks up).
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"rate-limit parseConfig max_retries HTTPServer", "café ＡＰＩ ﬁle Straße", "\xff\xfe", "a\u0301\u0302b", "İstanbul ǅ ﬀ", "x--y__z..w", "1.2.3 v2Parser"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range Analyze(s) {
			if len(c.Surfaces) == 0 || len(c.Surfaces) != len(c.Stems) {
				t.Fatalf("%q: compound %+v", s, c)
			}
			if (c.Whole != "") != (len(c.Surfaces) > 1) {
				t.Fatalf("%q: whole %q for %d parts", s, c.Whole, len(c.Surfaces))
			}
			for _, w := range append(append([]string{}, c.Surfaces...), c.Stems...) {
				if !isTerm(w) {
					t.Fatalf("%q: bad term %q", s, w)
				}
			}
			if c.Whole != "" && !isTerm(c.Whole) {
				t.Fatalf("%q: bad whole %q", s, c.Whole)
			}
			for _, w := range c.Surfaces {
				if Fold(w) != w {
					t.Fatalf("%q: Fold(%q) = %q", s, w, Fold(w))
				}
			}
		}
		_ = Fold(s)
	})
}

// termsOf is the reference AppendTerms must equal, over Analyze's
// compounds: the stems, the wholes each as itself and its stem, and the
// parts (the best lines of gitvault/find match these).
func termsOf(text string) (stems, wholes, parts []string) {
	for _, c := range Analyze(text) {
		stems = append(stems, c.Stems...)
		parts = append(parts, c.Surfaces...)
		if c.Whole != "" {
			wholes = append(wholes, c.Whole, Stem(c.Whole))
		}
	}
	return
}

// columnsOf is the reference rendering Columns must equal: Analyze's
// compounds joined as the index writes them.
func columnsOf(text string) (stems, wholes, surfaces string) {
	var st, wh, su []string
	for _, c := range Analyze(text) {
		st = append(st, c.Stems...)
		su = append(su, c.Surfaces...)
		if c.Whole != "" {
			wh = append(wh, Stem(c.Whole))
			su = append(su, c.Whole)
		}
	}
	return strings.Join(st, " "), strings.Join(wh, " "), strings.Join(su, " ")
}

var columnsCases = []string{
	"", "a", "The retryPolicy retries failed webhook deliveries with exponential back-off; max_retries is 5.",
	"HTTPServer v2Parser parseConfig utf8 rate-limit rate_limit a.b/c d'e -x- x-- --y",
	"café CAFÉ Straße ﬁle ＡＢＣ naïve-approach l’été don’t e\u0301clair",
	strings.Repeat("x", 100) + " " + strings.Repeat("ab-", 40) + "z " + strings.Repeat("Ab", 50),
	"日本語のテキスト mixedKanji漢字Word 123abc ABCdef ABC",
	"line\r\nline\rline\n\n#heading **bold** `code_span` [[link|x]]",
}

func TestColumnsEqualsAnalyze(t *testing.T) {
	x := NewColumns()
	for _, text := range columnsCases {
		checkColumns(t, x, text)
	}
}

func checkColumns(t *testing.T, x *Columns, text string) {
	t.Helper()
	ws, ww, wu := columnsOf(text)
	var s, w, u []byte
	x.Append(text, &s, &w, &u)
	if string(s) != ws || string(w) != ww || string(u) != wu {
		t.Fatalf("Columns(%q):\n stems %q\n want  %q\n wholes %q\n want   %q\n surfaces %q\n want     %q", text, s, ws, w, ww, u, wu)
	}
	// AppendTerms holds termsOf's lists, the wholes each as stem then whole.
	st, wh, pa := termsOf(text)
	var rw []string
	for i := 0; i+1 < len(wh); i += 2 {
		rw = append(rw, wh[i+1], wh[i])
	}
	s, w, u = s[:0], w[:0], u[:0]
	x.AppendTerms(text, &s, &w, &u)
	if string(s) != strings.Join(st, " ") || string(w) != strings.Join(rw, " ") || string(u) != strings.Join(pa, " ") {
		t.Fatalf("AppendTerms(%q):\n stems %q\n want  %q\n wholes %q\n want   %q\n parts %q\n want  %q", text, s, st, w, rw, u, pa)
	}
	// AppendTermsFirst is AppendTerms' lists with only the terms whose
	// first byte is marked: the first bytes of every other term, and then
	// of a fixed half of the ASCII letters.
	lists := [3][]string{st, rw, pa}
	var alternate, letters [256]bool
	k := 0
	for _, l := range lists {
		for _, term := range l {
			if term != "" && k%2 == 0 {
				alternate[term[0]] = true
			}
			k++
		}
	}
	for c := 'a'; c <= 'm'; c++ {
		letters[c] = true
	}
	for _, first := range []*[256]bool{&alternate, &letters} {
		var want [3]string
		for i, l := range lists {
			var kept []string
			for _, term := range l {
				if term != "" && first[term[0]] {
					kept = append(kept, term)
				}
			}
			want[i] = strings.Join(kept, " ")
		}
		s, w, u = s[:0], w[:0], u[:0]
		x.AppendTermsFirst(text, first, &s, &w, &u)
		if string(s) != want[0] || string(w) != want[1] || string(u) != want[2] {
			t.Fatalf("AppendTermsFirst(%q):\n stems %q\n want  %q\n wholes %q\n want   %q\n parts %q\n want  %q", text, s, want[0], w, want[1], u, want[2])
		}
	}
}

func FuzzColumns(f *testing.F) {
	for _, c := range columnsCases {
		f.Add(c)
	}
	x := NewColumns()
	f.Fuzz(func(t *testing.T, text string) { checkColumns(t, x, text) })
}

// BenchmarkTerms (termsOf, what the best lines of a hit in gitvault/find
// used) and BenchmarkAppendTerms: one line of that page.
func BenchmarkTerms(b *testing.B) {
	line := "The retryPolicy retries failed webhook deliveries with exponential back-off; max_retries is 5."
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		termsOf(line)
	}
}

func BenchmarkAppendTerms(b *testing.B) {
	line := "The retryPolicy retries failed webhook deliveries with exponential back-off; max_retries is 5."
	b.SetBytes(int64(len(line)))
	x := NewColumns()
	var s, w, u []byte
	for i := 0; i < b.N; i++ {
		s, w, u = s[:0], w[:0], u[:0]
		x.AppendTerms(line, &s, &w, &u)
	}
}

// BenchmarkColumns: the page of BenchmarkAnalyze through Columns.
func BenchmarkColumns(b *testing.B) {
	line := "The retryPolicy retries failed webhook deliveries with exponential back-off; max_retries is 5. "
	text := strings.Repeat(line, 4096/len(line))
	b.SetBytes(int64(len(text)))
	x := NewColumns()
	var s, w, u []byte
	for i := 0; i < b.N; i++ {
		s, w, u = s[:0], w[:0], u[:0]
		x.Append(text, &s, &w, &u)
	}
}

// FuzzStemKeepsFirstByte: a stem begins with its word's first byte
// (Snowball English changes endings only). The best lines of a hit rely
// on it to stem only the words that can match a query term
// (Columns.AppendTermsFirst).
func FuzzStemKeepsFirstByte(f *testing.F) {
	for _, w := range []string{"dying", "skies", "ies", "yes", "sses", "generously", "ugly", "news", "eed", "ying", "aaa", "cancellation"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, in string) {
		w := make([]byte, 0, len(in))
		for i := 0; i < len(in) && len(w) < MaxWordBytes; i++ {
			w = append(w, 'a'+in[i]%26)
		}
		if len(w) == 0 {
			return
		}
		if s := Stem(string(w)); s == "" || s[0] != w[0] {
			t.Fatalf("Stem(%q) = %q", w, s)
		}
	})
}
