package merge

import (
	"bytes"
	"fmt"
	"os/exec"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

// The merge driver on big, repetitive Markdown (issue 11 item 12): three
// versions of 20,000 and 60,000 lines with scattered edits on both sides.
// scripts/bench.sh times `git merge-file` on the same bytes
// (cmd/vaultgen -merge-lines).
func BenchmarkMergePageMarkdown(b *testing.B) {
	for _, n := range []int{20000, 60000} {
		base, ours, theirs := vaultgen.MergeVersions(1, n)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(base) + len(ours) + len(theirs)))
			for b.Loop() {
				if _, _, err := MergePage(base, ours, theirs, Labels{Ours: "ours", Base: "base", Theirs: "theirs"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDifferentialBigMarkdown compares the merge of large repetitive
// Markdown with `git merge-file`, byte for byte: at this size xdiff's
// cost heuristics (xdl_split) decide the edit scripts, and the port must
// take the same shortcuts git takes.
func TestDifferentialBigMarkdown(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir, env := t.TempDir(), testenv.TempGit(t).Inherit()
	sizes := []int{1500, 3000, 6000, 20000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, n := range sizes {
		for seed := uint64(1); seed <= 3; seed++ {
			base, ours, theirs := vaultgen.MergeVersions(seed, n)
			for _, diff3 := range []bool{false, true} {
				want, gitClean := gitMergeFile(t, dir, env, string(base), string(ours), string(theirs), diff3)
				got, clean, err := MergePage(base, ours, theirs,
					Labels{Ours: "ours", Base: "base", Theirs: "theirs", Diff3: diff3})
				if err != nil {
					t.Fatal(err)
				}
				if clean != gitClean || !bytes.Equal(got, want) {
					t.Errorf("lines=%d seed=%d diff3=%v: clean %v, git %v; output differs at byte %d of %d (git %d)",
						n, seed, diff3, clean, gitClean, firstDiff(got, want), len(got), len(want))
				}
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestDiffLinesBigMatchesGitMyers compares the edit scripts themselves
// with git's Myers diff (not minimal, as merge-file runs it) on the large
// versions, where the cost heuristics cut the search short.
func TestDiffLinesBigMatchesGitMyers(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir, env := t.TempDir(), testenv.TempGit(t).Inherit()
	for _, n := range []int{3000, 20000} {
		for seed := uint64(1); seed <= 2; seed++ {
			base, ours, theirs := vaultgen.MergeVersions(seed, n)
			for _, pair := range [][2][]byte{{base, ours}, {base, theirs}, {ours, theirs}} {
				a, b := string(pair[0]), string(pair[1])
				want := gitDiffScript(t, dir, env, a, b)
				got := diffLines(splitLines(a), splitLines(b))
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("lines=%d seed=%d: edit scripts differ (%d hunks, git %d)", n, seed, len(got), len(want))
				}
			}
		}
	}
}
