package freshness

import (
	"fmt"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// TestChainFiltersAgree: on random histories (edits, renames, deletes,
// line moves) whose commit-graph has changed-path filters, a Check of a
// few pages gives the same reports with the filters as without them, and
// the chain pass does skip commits (those that change no file the pages
// cite, nor a page); the citations renamed along the way are covered
// after the commits were passed.
func TestChainFiltersAgree(t *testing.T) {
	skipped0 := chainFilterStats.skipped.Load()
	forSeeds(t, func(t *testing.T, seed uint64) {
		r := newRefRepo(t, seed, 20, 8)
		pages := []string{"EchoesVault/pages/alpha.md", "EchoesVault/pages/beta.md", "EchoesVault/pages/gamma.md"}
		for n, p := range pages {
			names := r.names()
			pick := func() string { return names[r.rnd.IntN(len(names))] }
			src := []string{pick(), fmt.Sprintf("%s:%d-%d", pick(), 3, 6), "src/d1"}
			r.write(p, page(src, fmt.Sprintf("Page %d; see `%s`.", n, pick())))
			r.commit("page " + p)
			for i := 0; i < 4; i++ {
				r.op(10*n + i)
			}
		}
		// A page renamed (pure): its anchor is found under the old
		// name, past commits skipped before that name was asked about.
		r.git("mv", pages[0], "EchoesVault/pages/delta.md")
		pages[0] = "EchoesVault/pages/delta.md"
		r.commit("rename a page")
		for i := 0; i < 12; i++ {
			if r.rnd.IntN(3) == 0 {
				r.write(fmt.Sprintf("other/o%d.txt", i), "uncited\n")
				r.commit(fmt.Sprintf("other %d", i))
				continue
			}
			r.op(100 + i)
		}
		if seed%2 == 0 {
			// A merge on top: the anchors and ranges are then read
			// off the chain (pageAnchors, rangeIndex), past
			// commits the chain pass skipped.
			r.git("checkout", "-q", "-b", "side", "HEAD~3")
			r.write("other/side.txt", "side\n")
			r.commit("side")
			r.git("checkout", "-q", "main")
			r.n++
			r.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
		}
		r.git("commit-graph", "write", "--reachable", "--changed-paths")
		head := r.git("rev-parse", "HEAD")
		var docs []Doc
		for _, p := range pages {
			docs = append(docs, Doc{Path: p, Text: r.git("show", head+":"+p)})
		}
		check := func(on bool) string {
			defer func(v bool) { chainFilters = v }(chainFilters)
			chainFilters = on
			reps, err := Check(r.open(), head, docs)
			if err != nil {
				t.Fatal(err)
			}
			return pyjson.Compact(JSON(head, reps))
		}
		if with, without := check(true), check(false); with != without {
			t.Fatalf("with the filters\n%s\nwithout\n%s\n%s", with, without, r.git("log", "--oneline", "--name-status"))
		}
	})
	if chainFilterStats.skipped.Load() == skipped0 {
		t.Fatal("no commit skipped: the filters were not used")
	}
}
