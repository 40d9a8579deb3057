package merge

import "github.com/git-echoes/git-echoes/internal/linediff"

// change is one hunk of an edit script: a[i1:i1+chg1] becomes b[i2:i2+chg2].
type change struct{ i1, i2, chg1, chg2 int }

// diffLines returns git's (Myers, no indent heuristic) edit script from a
// to b (internal/linediff, which holds the xdiff port so that other
// packages can use it), in the form the three-way merge reads.
func diffLines(a, b []string) []change {
	script := linediff.Lines(a, b)
	out := make([]change, len(script))
	for i, c := range script {
		out[i] = change{i1: c.I1, i2: c.I2, chg1: c.Chg1, chg2: c.Chg2}
	}
	return out
}
