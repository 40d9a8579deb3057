package freshness

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness/freshnesstest"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// The benchmark of issue 18: 1,000 pages citing 3,000 paths over a
// 10,000-commit history, made with git fast-import. Each commit after the
// first changes one line of one cited file; every 50th also edits a page,
// so anchors are spread over the history. scripts/bench.sh builds the
// same history (WriteCitingHistory's stream) for the whole commands.

var benchRepo struct {
	once sync.Once
	dir  string
	err  error
}

func citingHistory(b *testing.B) string {
	benchRepo.once.Do(func() {
		// FRESHNESS_BENCH_REPO names a copy of this history made before
		// (scripts/bench.sh's fresh10k), to profile without building it.
		if dir := os.Getenv("FRESHNESS_BENCH_REPO"); dir != "" {
			benchRepo.dir = dir
			return
		}
		s := gitrepotest.New(b)
		dir, err := testenv.SharedTempDir("freshness-bench")
		if err != nil {
			benchRepo.err = err
			return
		}
		dir = s.Init(filepath.Join(dir, "r"))
		var stream strings.Builder
		w := bufio.NewWriter(&stream)
		freshnesstest.WriteCitingHistory(w, freshnesstest.Commits, freshnesstest.Pages, freshnesstest.Files)
		w.Flush()
		if _, err := s.Run(dir, nil, []byte(stream.String()), "fast-import", "--quiet"); err != nil {
			benchRepo.err = err
			return
		}
		// Checked out and initialized, as scripts/bench.sh's fresh10k
		// (git echoes init): the work-tree benchmark reads the pages
		// from the files, past the vault's gate.
		s.Git(dir, "reset", "-q", "--hard", "main")
		if benchRepo.err = writeMarker(dir); benchRepo.err != nil {
			return
		}
		s.Git(dir, "commit-graph", "write", "--reachable")
		benchRepo.dir = dir
	})
	if benchRepo.err != nil {
		b.Fatal(benchRepo.err)
	}
	return benchRepo.dir
}

// writeMarker writes the vault marker of dir's workspace through the
// locked writer, as init does.
func writeMarker(dir string) error {
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		return err
	}
	w, err := eng.WS.Acquire()
	if err != nil {
		return err
	}
	defer w.Release()
	_, err = w.WriteMarker()
	return err
}

// BenchmarkStaleCold: every page's anchor, citations and verdicts, from
// nothing (no cache), as git echoes stale --rev main computes them.
func BenchmarkStaleCold(b *testing.B) {
	dir := citingHistory(b)
	repo, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	head, err := repo.ResolveCommit("main")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		docs, err := TreePages(repo, head)
		if err != nil {
			b.Fatal(err)
		}
		reps, err := Check(repo, head, docs)
		if err != nil {
			b.Fatal(err)
		}
		if len(reps) != freshnesstest.Pages {
			b.Fatalf("%d reports", len(reps))
		}
	}
}

// BenchmarkGitLogNameOnly is the yardstick: one git log --format=%H
// --name-only over the same history.
func BenchmarkGitLogNameOnly(b *testing.B) {
	dir := citingHistory(b)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("git", "log", "--format=%H", "--name-only", "main")
		cmd.Dir = dir
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkStaleWarm: the same run answered from the verdict cache
// (reading the pages at the target, keying them, reading verdicts).
func BenchmarkStaleWarm(b *testing.B) {
	dir := citingHistory(b)
	repo, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	head, err := repo.ResolveCommit("main")
	if err != nil {
		b.Fatal(err)
	}
	cache := filepath.Join(b.TempDir(), "stale")
	docs, err := TreePages(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	if _, werr, err := CheckCached(repo, head, docs, cache); err != nil || werr != nil {
		b.Fatal(err, werr)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		docs, err := TreePages(repo, head)
		if err != nil {
			b.Fatal(err)
		}
		reps, werr, err := CheckCached(repo, head, docs, cache)
		if err != nil || werr != nil || len(reps) != freshnesstest.Pages {
			b.Fatal(err, werr, len(reps))
		}
	}
}

// BenchmarkStaleWarmRender: the warm run with its rendering, as git echoes
// stale --format json and text print it (the JSON is 3.7 MB here).
func BenchmarkStaleWarmRender(b *testing.B) {
	dir := citingHistory(b)
	repo, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	head, err := repo.ResolveCommit("main")
	if err != nil {
		b.Fatal(err)
	}
	cache := filepath.Join(b.TempDir(), "stale")
	docs, err := TreePages(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	if _, werr, err := CheckCached(repo, head, docs, cache); err != nil || werr != nil {
		b.Fatal(err, werr)
	}
	for _, format := range []string{"json", "text"} {
		b.Run(format, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				docs, err := TreePages(repo, head)
				if err != nil {
					b.Fatal(err)
				}
				reps, werr, err := CheckCached(repo, head, docs, cache)
				if err != nil || werr != nil || len(reps) != freshnesstest.Pages {
					b.Fatal(err, werr, len(reps))
				}
				var out string
				if format == "json" {
					out = pyjson.Pretty(JSON(head, reps))
				} else {
					out = Text(head, reps)
				}
				if len(out) == 0 {
					b.Fatal("empty rendering")
				}
			}
		})
	}
}

// BenchmarkStaleWarmAnswer: git echoes stale --rev main --format json
// warm as the command runs it, opening included (the workspace, the
// repository, one object reader): the answer printed from the rendered
// cache. The cache is the workspace's own (.git/echoes/stale), as the
// command's.
func BenchmarkStaleWarmAnswer(b *testing.B) { benchWarmAnswer(b, Selection{Rev: "main"}) }

// BenchmarkStaleWarmAnswerWorkTree is BenchmarkStaleWarmAnswer for the
// work tree's pages against HEAD (git echoes stale without --rev): every
// page is read and keyed by its text or its blob.
func BenchmarkStaleWarmAnswerWorkTree(b *testing.B) { benchWarmAnswer(b, Selection{}) }

// benchWarmAnswer times the warm answer of sel, the cache filled by a
// first run.
func benchWarmAnswer(b *testing.B, sel Selection) {
	dir := citingHistory(b)
	r := Renderer{Name: "json", Render: PrettyJSON}
	run := func() {
		eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, werr, err := Rendered(eng, sel, r, io.Discard); err != nil || werr != nil {
			b.Fatal(err, werr)
		}
	}
	run()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}

// BenchmarkStaleColdCommand is git echoes stale --rev main --format json
// cold, as the command runs it, in process: opening, the pages read at
// the target, Check, the caches written, the JSON rendered; the
// workspace's cache removed before each run. What it adds to
// BenchmarkStaleCold is the command's own share of a cold run.
func BenchmarkStaleColdCommand(b *testing.B) {
	dir := citingHistory(b)
	cache := filepath.Join(dir, ".git", "echoes", "stale")
	r := Renderer{Name: "json", Render: PrettyJSON}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.RemoveAll(cache); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, werr, err := Rendered(eng, Selection{Rev: "main"}, r, io.Discard); err != nil || werr != nil {
			b.Fatal(err, werr)
		}
	}
}

// BenchmarkStaleAfterCommit: the first check after a commit, the verdict
// cache holding main's reports and the target a child of main that
// changes nothing cited (one new file): every report is carried forward
// (carry.go), none recomputed. Compare BenchmarkStaleCold, which is what
// this run cost before carrying.
func BenchmarkStaleAfterCommit(b *testing.B) {
	dir := citingHistory(b)
	repo, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	head, err := repo.ResolveCommit("main")
	if err != nil {
		b.Fatal(err)
	}
	// The child is made with plumbing, no reference moved: the history
	// is shared with the other benchmarks.
	s := gitrepotest.New(b)
	blob := strings.TrimSpace(s.Git(dir, "hash-object", "-w", "--stdin")) // an empty file
	ls := strings.TrimSuffix(s.Git(dir, "ls-tree", head), "\n")
	out, err := s.Run(dir, nil, []byte(ls+"\n100644 blob "+blob+"\tNOTES\n"), "mktree")
	if err != nil {
		b.Fatal(err)
	}
	child := strings.TrimSpace(s.Git(dir, "commit-tree", strings.TrimSpace(out), "-p", head, "-m", "notes"))
	cache := filepath.Join(b.TempDir(), "stale")
	docs, err := TreePages(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	if _, werr, err := CheckCached(repo, head, docs, cache); err != nil || werr != nil {
		b.Fatal(err, werr)
	}
	saved, err := os.ReadFile(filepath.Join(cache, "verdicts"))
	if err != nil {
		b.Fatal(err)
	}
	carried := carryStats.Load()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.WriteFile(filepath.Join(cache, "verdicts"), saved, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		docs, err := TreePages(repo, child)
		if err != nil {
			b.Fatal(err)
		}
		reps, werr, err := CheckCached(repo, child, docs, cache)
		if err != nil || werr != nil || len(reps) != freshnesstest.Pages {
			b.Fatal(err, werr, len(reps))
		}
	}
	b.StopTimer()
	if n := carryStats.Load() - carried; n != int64(b.N*freshnesstest.Pages) {
		b.Fatalf("%d reports carried in %d runs of %d pages", n, b.N, freshnesstest.Pages)
	}
}
