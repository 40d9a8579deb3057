package find

import (
	"path/filepath"
	"testing"
)

// A hit that matches only a [[link]] (issue 17) is listed with a positive
// score, and below the page the link names. In a small vault the linked
// name is in half the documents or more, where FTS5's bm25 floors the
// term's IDF at 1e-6: such scores were rounded to 0.0. And the page's
// own name was not indexed when it has a heading, so the pages linking
// to it outranked it.
func TestLinkOnlyHitScore(t *testing.T) {
	eng := newVault(t, false)
	writePage(t, eng, "rate-limits", pageText("decision", "api", "active", "How the public API throttles each token", "# API throttling\n\nWe throttle requests per token.\n"))
	writePage(t, eng, "cache", pageText("decision", "api", "active", "Caching", "We cache things. See [[rate-limits]].\n"))
	writePage(t, eng, "old-limits", pageText("decision", "api", "active", "Old limits by IP", "Limits by IP address. Replaced by [[rate-limits]].\n"))
	for _, q := range []string{"rate limits", "rate-limits", "rate"} {
		res, err := Find(eng.WS, Options{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 3 {
			t.Fatalf("%q: hits %v, want all three pages", q, hitNames(res))
		}
		if got := filepath.Base(res.Hits[0].File); got != "rate-limits.md" {
			t.Errorf("%q: first hit %s, want the page the links name (%v)", q, got, hitNames(res))
		}
		for _, h := range res.Hits {
			if !(h.Score > 0) {
				t.Errorf("%q: %s has score %v, want > 0", q, h.File, h.Score)
			}
		}
	}
}

func TestRoundScore(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{0, 0}, {1.0449999, 1.045}, {1.2345e-6, 1.234e-6}, {1234.56, 1235}, {0.5, 0.5},
	} {
		if got := roundScore(c.in); got != c.want {
			t.Errorf("roundScore(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
