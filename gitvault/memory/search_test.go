package memory

import (
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/jstext"
)

func TestMemoryTokenize(t *testing.T) {
	cases := map[string]string{
		"don't":                 "don|t",
		"v2.0":                  "v2|0",
		"  Auth AUTH auth ":     "auth",
		"snake_case kebab-case": "snake_case|kebab-case",
		"İstanbul":              "i|stanbul", // the combining dot from İ splits tokens
		"日本語 テキスト":              "日本語|テキスト",
		"":                      "",
		"!!! ...":               "",
	}
	for in, want := range cases {
		if got := strings.Join(Tokenize(in), "|"); got != want {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMemoryScoreExamples(t *testing.T) {
	score := func(q string, m *Memory) int {
		q, err := ValidateQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		return scoreMemory(m, nil, jstext.ToLower(q), Tokenize(q))
	}
	if got := score("e", mem("mem_e_case", func(m *Memory) { m.Title = "Other"; m.Body = "eee" })); got != 34 {
		t.Errorf("query e: %d, want 34", got)
	}
	if got := score("note", mem("mem_note_case", func(m *Memory) {
		m.Title = "Something"
		m.Tags = []string{"note"}
		m.Body = strings.Repeat("note ", 9)
	})); got != 19 {
		t.Errorf("query note: %d, want 19", got)
	}
	if got := score("token", workedExample()); got != 6 {
		t.Errorf("query token: %d, want 6", got)
	}
	if got := score("", workedExample()); got != 0 {
		t.Errorf("empty query: %d", got)
	}
}

func TestMemorySearchQueryValidation(t *testing.T) {
	r := testRoots(t)
	for q, want := range map[string]string{
		strings.Repeat("a", 501):        "memory search query is too long (maximum 500 characters).",
		strings.Repeat("😀", 251):        "memory search query is too long (maximum 500 characters).",
		"a\tb":                          "memory search query must not contain control characters.",
		"a\u202eb":                      "memory search query must not contain control characters.",
		"\n" + strings.Repeat("a", 500): "",
	} {
		_, err := Search(r, SearchOptions{Query: q})
		if (err == nil && want != "") || (err != nil && err.Error() != want) {
			t.Errorf("%q: %v", q[:min(len(q), 10)], err)
		}
	}
	if _, err := Search(r, SearchOptions{Kinds: []string{"note", "note"}}); err == nil || err.Error() != "kinds must not contain duplicate values." {
		t.Errorf("kinds: %v", err)
	}
	if _, err := Search(r, SearchOptions{Trust: "reviewed"}); err == nil || err.Error() != "memory trust must be one of: unreviewed." {
		t.Errorf("trust: %v", err)
	}
}

func TestMemorySearchRankingAndFilters(t *testing.T) {
	r := testRoots(t)
	writeMemory(t, r, mem("mem_b_tie", func(m *Memory) { m.Body = "alpha" }))
	writeMemory(t, r, mem("mem_a_tie", func(m *Memory) { m.Body = "alpha" }))
	writeMemory(t, r, mem("mem_newer", func(m *Memory) { m.Body = "alpha"; m.UpdatedAt = "2026-07-27T00:00:00.000Z" }))
	writeMemory(t, r, mem("mem_title", func(m *Memory) { m.Title = "Alpha plan"; m.Kind = "fact" }))
	writeMemory(t, r, mem("mem_old", func(m *Memory) { m.Title = "Alpha"; m.Status = "superseded" }))
	writeMemory(t, r, mem("mem_claude", func(m *Memory) { m.Body = "alpha"; m.TargetHarnesses = []string{"claude"}; m.Scope = "team" }))
	ids := func(opts SearchOptions) string {
		res, err := Search(r, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range res.Results {
			out = append(out, x.Memory.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(SearchOptions{Query: "alpha"}); got != "mem_title,mem_newer,mem_a_tie,mem_b_tie,mem_claude" {
		t.Errorf("ranking: %s", got)
	}
	if got := ids(SearchOptions{Query: "alpha", TargetHarness: "codex"}); strings.Contains(got, "mem_claude") {
		t.Errorf("harness filter: %s", got)
	}
	if got := ids(SearchOptions{Query: "alpha", Kinds: []string{"fact"}}); got != "mem_title" {
		t.Errorf("kinds: %s", got)
	}
	if got := ids(SearchOptions{Query: "alpha", Limit: 2}); got != "mem_title,mem_newer" {
		t.Errorf("limit: %s", got)
	}
	if got := ids(SearchOptions{Query: "alpha", Limit: -5}); got != "mem_title" {
		t.Errorf("negative limit: %s", got)
	}
	if got := ids(SearchOptions{Query: "zzz"}); got != "" {
		t.Errorf("no match: %s", got)
	}
	if got := ids(SearchOptions{Scopes: []string{"team"}}); got != "mem_claude" {
		t.Errorf("scope + empty query: %s", got)
	}
}

func TestMemoryExcerpt(t *testing.T) {
	short := "a  b\n\tc\u3000d "
	if got := excerpt(short, nil); got != "a b c d" {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("x", 300) + " needle " + strings.Repeat("y", 300)
	got := excerpt(long, []string{"needle"})
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || jstext.UnitLen(got) != 242 || !strings.Contains(got, "needle") {
		t.Errorf("window: %q", got)
	}
	if got[len("…"):len("…")+60] != strings.Repeat("x", 59)+" " {
		t.Errorf("window should start 60 units before the token: %q", got[:80])
	}
	if got := excerpt(long, nil); got != long[:240]+"…" {
		t.Errorf("empty query: %q", got)
	}
	// The end of the text has no trailing ellipsis.
	tail := strings.Repeat("z", 300) + " end"
	if got := excerpt(tail, []string{"end"}); strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "…") {
		t.Errorf("tail: %q", got)
	}
	// Slicing by UTF-16 units can split a surrogate pair (parity).
	emoji := strings.Repeat("😀", 200)
	got = excerpt(emoji, []string{"zz"})
	if !strings.HasSuffix(got, "…") || jstext.UnitLen(got) != 241 {
		t.Errorf("emoji: %d", jstext.UnitLen(got))
	}
	split := excerpt("a"+emoji, nil)
	if !strings.Contains(jsjson.MarshalCompact(split), `\ud83d…"`) {
		t.Errorf("surrogate split not kept: %s", jsjson.MarshalCompact(split)[len(jsjson.MarshalCompact(split))-20:])
	}
}

// TestMemorySearchFinalSigma checks that search lowercases the query and
// the documents with JavaScript's final-sigma rule (ecc-conformance §2.3;
// scores as in ecc-conformance §12.3). Expected scores follow the rule: a Σ that ends a word lowers to
// ς, one followed (past case-ignorable characters of any number) by a
// cased letter to σ.
func TestMemorySearchFinalSigma(t *testing.T) {
	r := testRoots(t)
	marks := strings.Repeat("\u0301", 40)
	writeMemory(t, r, mem("mem_sigma_final", func(m *Memory) { m.Title = "ΌΣΟΣ"; m.Body = "Ο ΌΣΟΣ ΧΡΟΝΟΣ." }))
	writeMemory(t, r, mem("mem_sigma_marks", func(m *Memory) { m.Title = "Marks"; m.Body = "ΑΣ" + marks + "Β" }))
	scores := func(q string) string {
		res, err := Search(r, SearchOptions{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range res.Results {
			out = append(out, x.Memory.ID+"="+strconv.Itoa(x.Score))
		}
		return strings.Join(out, ",")
	}
	// "όσος": the title lowers to "όσος" (+20 whole query, +8 token in the
	// title), the body to "ο όσος χρονος." (1 occurrence): 29. The
	// uppercase query lowers the same way.
	for _, q := range []string{"όσος", "ΌΣΟΣ"} {
		if got := scores(q); got != "mem_sigma_final=29" {
			t.Errorf("query %q: %s, want mem_sigma_final=29", q, got)
		}
	}
	// With σ at the end nothing matches: every word-final Σ became ς.
	if got := scores("όσοσ"); got != "" {
		t.Errorf("query όσοσ: %s, want no result", got)
	}
	// Forty combining marks between Σ and Β are all case-ignorable, so
	// Β still follows: the body holds "ασ" (+5 whole query, +1 token).
	if got := scores("ασ"); got != "mem_sigma_marks=6" {
		t.Errorf("query ασ: %s, want mem_sigma_marks=6", got)
	}
}
