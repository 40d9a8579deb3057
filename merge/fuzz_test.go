package merge

import (
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/pytext"
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
		if clean {
			if mk, ok := inventedMarker(string(merged), string(base), string(ours), string(theirs)); !ok {
				t.Fatalf("clean merge invented conflict marker %q\nbase=%q\nours=%q\ntheirs=%q\nmerged=%q",
					mk, base, ours, theirs, merged)
			}
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

// inventedMarker checks that every conflict-marker line of a clean merge
// result (as the validation of echoes-conformance §9 finds them) comes from
// a line of one of the inputs: it returns the first marker line that no
// input holds, and false. Each marker is reduced to its first line in the
// str.splitlines sense the merge splits by (pytext.SplitLines), stripped,
// and looked for among the inputs' lines split the same way. Looking for
// markers in base+"\n"+ours+"\n"+theirs instead would be wrong both
// ways: the validation strips the whole text, so " <<<<<<<" alone is a
// marker but not after a "\n", and \x1c, \x1e or \r split lines for
// the merge but not for the regex. A merge that writes its own
// "<<<<<<< ours" line into a clean result still fails here unless an input
// already held that very line.
func inventedMarker(merged string, inputs ...string) (string, bool) {
	markers := frontmatter.FindConflictMarkers(merged)
	if len(markers) == 0 {
		return "", true
	}
	have := map[string]bool{}
	for _, in := range inputs {
		for _, line := range pytext.SplitLines(in) {
			have[pytext.Strip(line)] = true
		}
	}
	for _, m := range markers {
		key := pytext.Strip(m.Text)
		if lines := pytext.SplitLines(m.Text); len(lines) > 0 {
			key = pytext.Strip(lines[0])
		}
		if !have[key] {
			return m.Text, false
		}
	}
	return "", true
}

// TestInventedMarker pins both directions of the FuzzMergePage marker
// property: markers a merge writes itself are caught, lines an input
// already held (however the whole-text strip or \x1c splits them) are not.
func TestInventedMarker(t *testing.T) {
	conflict := "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n"
	if mk, ok := inventedMarker(conflict, "x\n", "a\n", "b\n"); ok || mk != "<<<<<<< ours" {
		t.Errorf("invented markers not caught: %q %v", mk, ok)
	}
	if mk, ok := inventedMarker("a\n=======\n", "a\n", "a\n", "a\n"); ok || mk != "=======" {
		t.Errorf("invented separator not caught: %q %v", mk, ok)
	}
	if _, ok := inventedMarker(" <<<<<<<", "@\x1e\r\x1c-", "@\x1e\r\x1c-", " <<<<<<<"); !ok {
		t.Error("a marker line theirs held was reported as invented")
	}
	if _, ok := inventedMarker("p\n<<<<<<< x\n", "p\x1c<<<<<<< x", "p\n", "q"); !ok {
		t.Error("a marker line base held after \\x1c was reported as invented")
	}
}
