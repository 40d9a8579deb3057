package find

import (
	"database/sql"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/analysis"
)

// FuzzParseQuery: the parser never panics, refuses with a QueryError,
// and every query it accepts is an FTS5 expression SQLite accepts (no
// user text can reach the MATCH syntax).
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"rate limit", `"token bucket" -redis`, "kube*", "-a b", `"a`, "parseConfig max_retries", "café ＡＰＩ ﬁle",
		`NEAR(a b)`, `a AND b OR NOT c`, `col:term`, `{title}: x`, `"" x`, "a* *b", "^start", "x'y", `\"`} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE fts USING fts5(title, summary, body, tags, whole, surface, tokenize='ascii', content='', contentless_delete=1);
		INSERT INTO fts(rowid, title, summary, body, tags, whole, surface) VALUES (1, 'rate limit', 'a', 'b', 'c', 'ratelimit', 'rate limit ratelimit')`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s)
		if err != nil {
			if _, ok := err.(*QueryError); !ok {
				t.Fatalf("%q: error %T", s, err)
			}
			return
		}
		if !utf8.ValidString(q.Raw) || strings.TrimSpace(q.Raw) != q.Raw {
			t.Fatalf("%q: raw %q", s, q.Raw)
		}
		rows, err := db.Query(`SELECT rowid, bm25(fts, `+weights+`) FROM fts WHERE fts MATCH ?`, q.match())
		if err != nil {
			t.Fatalf("%q: SQLite refuses %q: %v", s, q.match(), err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%q: %q: %v", s, q.match(), err)
		}
		rows.Close()
		lm := q.lineMatcher()
		_ = lm.score(s)
	})
}

// termsScore is lineMatcher.score's definition, over the line's
// compounds (analysis.Analyze): a term clause counts when one of its
// stems or stemmed wholes is among the line's stems or wholes (stemmed or
// not), a prefix clause when one of the line's parts starts with it.
func termsScore(q *Query, line string) int {
	have := map[string]bool{}
	var surfaces []string
	for _, c := range analysis.Analyze(line) {
		for _, s := range c.Stems {
			have[s] = true
		}
		if c.Whole != "" {
			have[c.Whole], have[analysis.Stem(c.Whole)] = true, true
		}
		surfaces = append(surfaces, c.Surfaces...)
	}
	n := 0
	for _, c := range q.clauses {
		if c.negated {
			continue
		}
		if c.kind == clausePrefix {
			for _, s := range surfaces {
				if strings.HasPrefix(s, c.prefix) {
					n++
					break
				}
			}
			continue
		}
	clause:
		for _, p := range c.parts {
			terms := p.Stems
			if p.Whole != "" {
				terms = append(terms[:len(terms):len(terms)], analysis.Stem(p.Whole))
			}
			for _, s := range terms {
				if have[s] {
					n++
					break clause
				}
			}
		}
	}
	return n
}

// FuzzLineScore: the best lines' matcher gives termsScore's count, for
// any query and line, with its buffers reused from line to line.
func FuzzLineScore(f *testing.F) {
	for _, c := range [][2]string{
		{"retry backoff", "The retryPolicy retries failed webhook deliveries with exponential back-off."},
		{"parseConfig pars*", "call parseConfig, then parse_config and ParseConfig"},
		{`"rate limit" -redis tok*`, "rate-limit RateLimit rate_limit tokens token"},
		{"café straße", "CAFÉ Strasse straße ﬁle"},
		{"a* x y x", "x y xylophone a ab abc"},
		{"context cancellation", "ctx cancelled; context.Context cancellation"},
		{"parsec*", "parseConfig here"}, // a prefix of a whole is not a prefix of a part
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, query, text string) {
		q, err := ParseQuery(query)
		if err != nil {
			return
		}
		lm := q.lineMatcher()
		for _, line := range append(strings.Split(text, "\n"), text) {
			if got, want := lm.score(line), termsScore(q, line); got != want {
				t.Fatalf("query %q, line %q: score %d, want %d", query, line, got, want)
			}
		}
	})
}
