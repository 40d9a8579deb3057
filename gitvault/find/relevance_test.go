package find

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The relevance test set (issue 12): testdata/relevance/corpus.json holds
// 45 target pages, 18 memories and 45 queries with their expected hits,
// covering inflection, hyphen and space, identifiers, accents, NFKC,
// phrases, exclusion, prefixes, filters and the memory scope and status
// rules; 250 generated pages and 60 generated memories are the noise
// around them.

type corpus struct {
	Pages []struct {
		Name, Type, Stack, Status, Summary, Body string
	}
	Memories []struct {
		ID, Title, Kind, Body, Scope, Status, Updated string
		Tags                                          []string
	}
	Queries []struct {
		Query       string
		Want        []string
		Cases       []string
		LiteralMiss bool
		Options     struct {
			Type, Stack, Status, Kind, Tag, Scope []string
			Since                                 string
		}
	}
}

func loadCorpus(t *testing.T) *corpus {
	b, err := os.ReadFile(filepath.Join("testdata", "relevance", "corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c corpus
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestRelevance(t *testing.T) {
	c := loadCorpus(t)
	if len(c.Queries) < 40 {
		t.Fatalf("only %d queries", len(c.Queries))
	}
	eng := newVault(t, true)
	r := roots(t, eng)
	for _, p := range c.Pages {
		writePage(t, eng, p.Name, pageText(p.Type, p.Stack, p.Status, p.Summary, p.Body))
	}
	for _, m := range c.Memories {
		writeMemory(t, r, memSpec{ID: m.ID, Title: m.Title, Kind: m.Kind, Body: m.Body, Scope: m.Scope, Status: m.Status, Updated: m.Updated, Tags: m.Tags})
	}
	writeFiller(t, eng, r, 250, 60, 12)

	found, total := 0, 0
	literalChecked := 0
	for _, q := range c.Queries {
		opt := Options{Query: q.Query, Limit: 5, Types: q.Options.Type, Stacks: q.Options.Stack, Statuses: q.Options.Status,
			Kinds: q.Options.Kind, Tags: q.Options.Tag, Scopes: q.Options.Scope, Since: q.Options.Since}
		res, err := Find(eng.WS, opt)
		if err != nil {
			t.Errorf("%q: %v", q.Query, err)
			continue
		}
		got := hitNames(res)
		for _, w := range q.Want {
			total++
			if slices.Contains(got, w) {
				found++
			} else {
				t.Errorf("%q %v (%s): %s not in the top 5: %v", q.Query, q.Cases, optText(opt), w, got)
			}
		}
		if q.LiteralMiss {
			// The literal search misses what find gets: the expected pages
			// do not contain the query as written.
			sr, err := eng.Search(q.Query, 500)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range sr.Hits {
				if slices.Contains(q.Want, filepath.ToSlash(h.File)) {
					t.Errorf("%q: literal search finds %s too: not a case only find gets", q.Query, h.File)
				}
			}
			literalChecked++
		}
	}
	recall := float64(found) / float64(total)
	t.Logf("recall@5 = %.3f (%d/%d expected hits, %d queries; literal search misses %d of them)", recall, found, total, len(c.Queries), literalChecked)
	if recall < 1 {
		t.Errorf("recall@5 = %.3f, want 1", recall)
	}
	if literalChecked < 10 {
		t.Errorf("only %d inflection/hyphen queries checked against the literal search", literalChecked)
	}
}

func optText(o Options) string {
	var parts []string
	add := func(k string, v []string) {
		if len(v) > 0 {
			parts = append(parts, k+"="+strings.Join(v, ","))
		}
	}
	add("type", o.Types)
	add("stack", o.Stacks)
	add("status", o.Statuses)
	add("kind", o.Kinds)
	add("tag", o.Tags)
	add("scope", o.Scopes)
	if o.Since != "" {
		parts = append(parts, "since="+o.Since)
	}
	return strings.Join(parts, " ")
}
