package find

import (
	"database/sql"
	"strings"
	"testing"
	"unicode/utf8"
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
