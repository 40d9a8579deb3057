package freshness

import (
	"os/exec"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The review rule on the benchmark history (bench_test.go: 1,000 pages
// citing 3,000 paths over 10,000 commits): a pull request of the last 30
// commits, as check --rev main~30...main computes memory-stale.
func BenchmarkSincePullRequest(b *testing.B) {
	dir := citingHistory(b)
	repo, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	base, err := repo.ResolveCommit("main~30")
	if err != nil {
		b.Fatal(err)
	}
	head, err := repo.ResolveCommit("main")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Since(repo, base, head, SinceOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGitLogNameOnlyPullRequest is its yardstick: git log
// --format=%H --name-only over the same 30 commits.
func BenchmarkGitLogNameOnlyPullRequest(b *testing.B) {
	dir := citingHistory(b)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("git", "log", "--format=%H", "--name-only", "main~30..main")
		cmd.Dir = dir
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}
