package gitrepo

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkCommitPrefixes reads the header of every commit of the
// repository ECHOES_BENCH_REPO names (a clone of a real project, as
// scripts/bench.sh prepares for log --follow): the chain a log walk
// without a commit-graph must read one after the other (issue 19, part 3).
func BenchmarkCommitPrefixes(b *testing.B) {
	dir := os.Getenv("ECHOES_BENCH_REPO")
	if dir == "" {
		b.Skip("ECHOES_BENCH_REPO is not set (a clone of a real repository)")
	}
	out, err := exec.Command("git", "-C", dir, "rev-list", "--all").Output()
	if err != nil {
		b.Fatal(err)
	}
	hashes := strings.Fields(string(out))
	repo, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		tr := repo.NewTreeReader() // nothing remembered between rounds
		for _, h := range hashes {
			if _, err := tr.CommitHeader(h); err != nil {
				b.Fatal(err)
			}
		}
		tr.Close()
	}
	b.ReportMetric(float64(len(hashes)), "commits/op")
}
