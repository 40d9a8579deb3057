package hooks

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/gitvault/freshness/freshnesstest"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// The SessionStart addition of issue 18 on the benchmark vault of
// gitvault/freshness/bench_test.go and scripts/bench.sh (1,000 pages
// citing 3,000 paths over 10,000 commits; each commit changes one line of
// one cited file, every 50th also edits a page), checked out with an
// initialized vault. BenchmarkSessionStartFreshness is the addition
// (StaleLines: the recent pages, their verdicts, their lines);
// BenchmarkSessionStartCard, the yardstick in the same run, is what the
// hook did before (the read-only inspection and its card).
// BenchmarkSessionStartFreshness is a session after git echoes stale ran
// at this HEAD (its verdict cache read, never written by the hook),
// ...FreshnessCold one without that cache.
//
//	go test ./hooks -run '^$' -bench SessionStart -benchtime 20x
//	SESSIONSTART_BENCH_REPACK=1 go test ./hooks -run '^$' -bench SessionStart -benchtime 20x

var benchVault struct {
	once sync.Once
	dir  string
	err  error
}

func benchVaultDir(b *testing.B) string {
	benchVault.once.Do(func() {
		s := gitrepotest.New(b)
		base, err := testenv.SharedTempDir("sessionstart-bench")
		if err != nil {
			benchVault.err = err
			return
		}
		dir := s.Init(filepath.Join(base, "r"))
		var stream strings.Builder
		w := bufio.NewWriter(&stream)
		freshnesstest.WriteCitingHistory(w, freshnesstest.Commits, freshnesstest.Pages, freshnesstest.Files)
		w.Flush()
		if _, err := s.Run(dir, nil, []byte(stream.String()), "fast-import", "--quiet"); err != nil {
			benchVault.err = err
			return
		}
		s.Git(dir, "reset", "-q", "--hard", "main")
		eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
		if err == nil {
			_, err = setup.Install(eng, "init")
		}
		if err != nil {
			benchVault.err = err
			return
		}
		s.Git(dir, "add", "-A")
		s.Git(dir, "commit", "-qm", "vault")
		// SESSIONSTART_BENCH_REPACK=1: the history as a gc'd repository
		// holds it (git repack -adf: newest objects whole, older ones as
		// deltas); fast-import's pack has forward chains, so reading the
		// newest trees first rebuilds each from an old base.
		if os.Getenv("SESSIONSTART_BENCH_REPACK") != "" {
			s.Git(dir, "repack", "-adfq")
		}
		s.Git(dir, "commit-graph", "write", "--reachable")
		benchVault.dir = dir
	})
	if benchVault.err != nil {
		b.Fatal(benchVault.err)
	}
	return benchVault.dir
}

func BenchmarkSessionStartFreshness(b *testing.B) {
	dir := benchVaultDir(b)
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, _, err := freshness.Reports(eng, freshness.Selection{}); err != nil { // git echoes stale
		b.Fatal(err)
	}
	lines := StaleLines(dir)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := StaleLines(dir); len(got) != len(lines) {
			b.Fatalf("%d lines, then %d", len(lines), len(got))
		}
	}
	b.ReportMetric(float64(len(lines)), "lines")
}

// BenchmarkSessionStartFreshnessCold: the addition without stale's
// verdict cache (removed before each call): the walk to the recent pages
// and their verdicts from history.
func BenchmarkSessionStartFreshnessCold(b *testing.B) {
	dir := benchVaultDir(b)
	cache := filepath.Join(dir, ".git", "echoes", "stale")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.RemoveAll(cache); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if got := StaleLines(dir); len(got) == 0 {
			b.Fatal("no line")
		}
	}
}

func BenchmarkSessionStartCard(b *testing.B) {
	dir := benchVaultDir(b)
	for i := 0; i < b.N; i++ {
		if card := statusCard(dir); card == UnavailableCard {
			b.Fatal("status unavailable")
		}
	}
}
