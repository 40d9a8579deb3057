// Package freshnesstest builds the benchmark history of issue 18 ("1,000
// pages citing 3,000 paths over a 10,000-commit history"), shared by the
// benchmarks of gitvault/freshness and of the SessionStart hook so that
// both measure the same repository. Imported by tests only.
package freshnesstest

import (
	"fmt"
	"io"
	"strings"
)

// The sizes issue 18 names.
const (
	Pages   = 1000
	Files   = 3000
	Commits = 10000
)

// WriteCitingHistory writes to w the fast-import stream of the benchmark
// history: commits commits on refs/heads/main, the first adding files Go
// files and pages pages that cite three of them each (two in sources:, one
// a line range, and one inline in the body); every later commit changes
// one line of one file, and every 50th also edits a page, so anchors are
// spread over the history. scripts/bench.sh's awk writes the same stream.
func WriteCitingHistory(w io.Writer, commits, pages, files int) {
	file := func(f, version int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package d%02d\n\n", f%100)
		for l := 1; l <= 20; l++ {
			if l == 10 {
				fmt.Fprintf(&b, "// version %d of file %d\n", version, f)
				continue
			}
			fmt.Fprintf(&b, "// line %d of file %d\n", l, f)
		}
		return b.String()
	}
	path := func(f int) string { return fmt.Sprintf("src/d%02d/f%04d.go", f%100, f) }
	pageText := func(p, rev int) string {
		return fmt.Sprintf("---\ntype: note\nstack: go\nstatus: active\nsummary: \"page %d\"\nsources:\n  - %s\n  - %s:8-12\n---\n\nSee `%s` (revision %d).\n",
			p, path(3*p%files), path((3*p+1)%files), path((3*p+2)%files), rev)
	}
	data := func(s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }
	ts := 1700000000
	for c := 0; c < commits; c++ {
		fmt.Fprintf(w, "commit refs/heads/main\ncommitter bench <bench@example.com> %d +0000\n", ts+c*60)
		data(fmt.Sprintf("commit %d", c))
		if c == 0 {
			for f := 0; f < files; f++ {
				fmt.Fprintf(w, "M 100644 inline %s\n", path(f))
				data(file(f, 0))
			}
			for p := 0; p < pages; p++ {
				fmt.Fprintf(w, "M 100644 inline EchoesVault/pages/page-%04d.md\n", p)
				data(pageText(p, 0))
			}
			continue
		}
		f := c * 7919 % files
		fmt.Fprintf(w, "M 100644 inline %s\n", path(f))
		data(file(f, c))
		if c%50 == 0 {
			p := c * 31 % pages
			fmt.Fprintf(w, "M 100644 inline EchoesVault/pages/page-%04d.md\n", p)
			data(pageText(p, c))
		}
	}
}
