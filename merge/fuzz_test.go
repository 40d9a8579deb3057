package merge

import (
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
)

// FuzzMergePage checks that MergePage never panics and that a clean result
// keeps every line that only one side added relative to base.
func FuzzMergePage(f *testing.F) {
	f.Add([]byte(basePage),
		[]byte(strings.Replace(basePage, "status: active", "status: draft", 1)),
		[]byte(strings.Replace(basePage, "# Title", "# Other", 1)), false)
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC"), true)
	f.Add([]byte(""), []byte("---\r\nk: v\r\n---\r\n"), []byte("---\nk: w\n---\nbody"), false)
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte, diff3 bool) {
		labels := Labels{Ours: "ours", Base: "base", Theirs: "theirs", Diff3: diff3}
		merged, clean, err := MergePage(base, ours, theirs, labels)
		if err != nil {
			t.Fatalf("MergePage: %v", err)
		}
		if clean && !keepsOneSidedLines(string(base), string(ours), string(theirs), string(merged)) {
			t.Fatalf("clean merge lost a one-sided line\nbase=%q\nours=%q\ntheirs=%q\nmerged=%q",
				base, ours, theirs, merged)
		}
		if clean && frontmatter.HasConflictMarkersAnyNewline(string(merged)) &&
			!frontmatter.HasConflictMarkersAnyNewline(string(base)+"\n"+string(ours)+"\n"+string(theirs)) {
			t.Fatalf("clean merge invented conflict markers: %q", merged)
		}
		// MergePage falls back to the line merge if the page-aware merge
		// ever dropped a line; check the page-aware merge on its own so
		// that such a fallback cannot hide a bug.
		opt := lineMergeOptions{ours: "ours", base: "base", theirs: "theirs", diff3: diff3}
		out, conflicts, paged := mergePageText(string(base), string(ours), string(theirs), opt)
		if paged && conflicts == 0 && !keepsOneSidedLines(string(base), string(ours), string(theirs), string(out)) {
			t.Fatalf("page-aware merge lost a one-sided line\nbase=%q\nours=%q\ntheirs=%q\nmerged=%q",
				base, ours, theirs, out)
		}
	})
}
