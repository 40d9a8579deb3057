package freshness

import (
	"math/rand"
	"testing"

	"github.com/git-echoes/git-echoes/internal/linediff"
)

// lineCounts skips the diff for edits of at most one line a side; its
// counts must be the diff's on every input (small alphabets, so that
// common ends, repeats and moves are frequent).
func TestLineCountsAgreesWithDiff(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	words := []string{"a\n", "b\n", "c\n", "a", "b"}
	gen := func() []string {
		n := rng.Intn(8)
		out := make([]string, n)
		for i := range out {
			out[i] = words[rng.Intn(len(words))]
		}
		return out
	}
	for n := 0; n < 20000; n++ {
		before := gen()
		after := gen()
		if rng.Intn(2) == 0 && len(before) > 0 {
			// One line edited, inserted or deleted in a copy.
			after = append([]string{}, before...)
			i := rng.Intn(len(after))
			switch rng.Intn(3) {
			case 0:
				after[i] = words[rng.Intn(len(words))]
			case 1:
				after = append(after[:i], append([]string{words[rng.Intn(len(words))]}, after[i:]...)...)
			default:
				after = append(after[:i], after[i+1:]...)
			}
		}
		wantA, wantR := 0, 0
		for _, h := range linediff.Lines(before, after) {
			wantA += h.Chg2
			wantR += h.Chg1
		}
		if a, r := lineCounts(before, after); a != wantA || r != wantR {
			t.Fatalf("lineCounts(%q, %q) = +%d -%d, the diff says +%d -%d", before, after, a, r, wantA, wantR)
		}
	}
}
