package review

import (
	"os"
	"os/exec"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
)

// BenchmarkLogRealRepo runs git echoes log --follow on a repository named
// by ECHOES_BENCH_REPO (a clone of a real project, e.g. go-git's own
// history with a page committed into EchoesVault/, as scripts/bench.sh
// prepares it) for the page ECHOES_BENCH_PAGE (default top.md). It skips
// without one: the test suite has no network, and its own histories are
// generated (BenchmarkLogDeepPack).
func BenchmarkLogRealRepo(b *testing.B) {
	dir := os.Getenv("ECHOES_BENCH_REPO")
	if dir == "" {
		b.Skip("ECHOES_BENCH_REPO is not set (a clone of a real repository with a vault page)")
	}
	page := os.Getenv("ECHOES_BENCH_PAGE")
	if page == "" {
		page = "top.md"
	}
	e, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		res, err := Log(e, LogOptions{Target: page, Follow: true})
		if err != nil || len(res.Entries) == 0 {
			b.Fatalf("%v: %d entries", err, len(res.Entries))
		}
		n = len(res.Entries)
	}
	b.ReportMetric(float64(n), "entries/op")
}

// BenchmarkLog1000DeepPack and BenchmarkGitLogFollow1000DeepPack are
// BenchmarkLog1000's history packed as a real project's is (git repack
// -adf --depth=50 --window=250: long delta chains of trees and pages),
// where fast-import's pack has short ones.
func BenchmarkLog1000DeepPack(b *testing.B) { benchLog(b, logRepoDeep(b)) }

func BenchmarkGitLogFollow1000DeepPack(b *testing.B) { benchGitLog(b, logRepoDeep(b)) }

func logRepoDeep(b *testing.B) string {
	dir := logRepo(b)
	cmd := exec.Command("git", "repack", "-a", "-d", "-f", "-q", "--depth=50", "--window=250")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	return dir
}
