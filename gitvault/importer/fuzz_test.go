package importer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseJSONL: the memory.jsonl parser never panics, and what it
// accepts is well formed (every entity named, every relation complete).
// Seeds: testdata/fuzz/FuzzParseJSONL and the lines below.
func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte(graph))
	f.Add([]byte(`{"type":"entity","name":"A","entityType":"t","observations":["x"]}` + "\n" + `{"type":"ent`))
	f.Add([]byte("\xef\xbb\xbf{\"type\":\"relation\",\"from\":\"a\",\"to\":\"b\",\"relationType\":\"r\"}\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseJSONL("m.jsonl", data)
		if err != nil {
			return
		}
		for _, e := range g.Entities {
			if strings.TrimSpace(e.Name) == "" || e.Line < 1 {
				t.Fatalf("accepted entity %+v", e)
			}
		}
		for _, r := range g.Relations {
			if r.From == "" || r.To == "" || strings.TrimSpace(r.RelationType) == "" {
				t.Fatalf("accepted relation %+v", r)
			}
		}
	})
}

// FuzzParseNote: the note parser, the link rewriter and the summary never
// panic; rewriting with the identity keeps the body; a summary is one line
// of at most 160 characters; a sanitized name is never empty and holds no
// separator.
func FuzzParseNote(f *testing.F) {
	f.Add(basicNote)
	f.Add("---\ntags: [a, \"#b\"]\naliases:\n- x\n---\nSee [[A|b]] ![[c.png]] [[d#e]]\n```\n[[f]]\n```\n")
	f.Add("---\nunterminated\n")
	f.Fuzz(func(t *testing.T, text string) {
		n := ParseNote(text)
		for _, fl := range n.Fields {
			_ = fl.Scalar()
			_ = fl.List()
		}
		same := RewriteLinks(n.Body, func(l Link) (string, bool) { return "", false })
		if same != n.Body {
			t.Fatalf("identity rewrite changed the body:\n%q\n%q", n.Body, same)
		}
		_ = RewriteLinks(n.Body, func(l Link) (string, bool) { return "x", true })
		s := SummaryOf(n.Body)
		if strings.ContainsAny(s, "\n\r") || utf8.RuneCountInString(s) > 160 {
			t.Fatalf("summary %q", s)
		}
		stem := sanitizeStem(text)
		if stem == "" || strings.ContainsAny(stem, `/\`) || strings.Contains(stem, "..") || strings.HasPrefix(stem, ".") {
			t.Fatalf("stem %q", stem)
		}
	})
}
