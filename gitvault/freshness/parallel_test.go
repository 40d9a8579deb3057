package freshness

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestParallelReportsAgree: Check gives the same reports, deep-equal,
// with the chain diffed ahead or not and the verdicts spread over
// workers or not, on random histories of 140 pages: file and line
// citations, implicit ones, pages edited and renamed along the way, a
// side branch merged back (pages anchored off the first-parent chain,
// which the workers hand back), a verified: anchor, and a shallow
// clone. With an object the walk needs deleted, every mode fails with
// the same error.
func TestParallelReportsAgree(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 4 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	}
	defer func(a, b bool) { chainDiffs, parallelReports = a, b }(chainDiffs, parallelReports)
	workersBefore, ownerBefore := reportStats.workers.Load(), reportStats.owner.Load()
	seeds := uint64(3)
	if testing.Short() { // the wine64 run, where every git call is slow
		seeds = 1
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			r, pages := pagesHistory(t, seed)
			head := r.git("rev-parse", "HEAD")
			docs := func(dir string) []Doc {
				var out []Doc
				for _, p := range pages {
					text, err := r.s.Run(dir, nil, nil, "show", head+":"+p)
					if err != nil {
						continue // renamed or deleted since
					}
					out = append(out, Doc{Path: p, Text: text})
				}
				return out
			}
			run := func(dir string) map[string][]Report {
				out := map[string][]Report{}
				ds := docs(dir)
				for _, mode := range []struct{ diff, par bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
					chainDiffs, parallelReports = mode.diff, mode.par
					repo := r.openAt(dir)
					reps, err := Check(repo, head, ds)
					key := fmt.Sprintf("diff=%v parallel=%v", mode.diff, mode.par)
					if err != nil {
						out[key] = []Report{{Path: "error: " + err.Error()}}
						continue
					}
					out[key] = reps
				}
				return out
			}
			agree := func(what string, got map[string][]Report) {
				t.Helper()
				want := got["diff=false parallel=false"]
				for k, v := range got {
					if !reflect.DeepEqual(v, want) {
						t.Fatalf("%s: %s differs from the sequential pass:\n%+v\nsequential:\n%+v", what, k, v, want)
					}
				}
			}
			all := run(r.dir)
			agree("full history", all)
			if len(all["diff=false parallel=false"]) < 130 {
				t.Fatalf("only %d reports", len(all["diff=false parallel=false"]))
			}

			clone := filepath.Join(t.TempDir(), "shallow")
			r.git("clone", "-q", "--no-local", "--depth", "12", r.dir, clone) // no file:// URL: see TestShallowClone
			agree("shallow clone", run(clone))

			// A commit object of the old history gone: the same error
			// from every mode.
			old := r.git("rev-list", "--max-parents=0", "HEAD")
			if err := os.Remove(filepath.Join(r.dir, ".git", "objects", old[:2], old[2:])); err != nil {
				t.Fatal(err)
			}
			broken := run(r.dir)
			if e := broken["diff=false parallel=false"]; len(e) != 1 || !strings.HasPrefix(e[0].Path, "error: ") {
				t.Fatalf("no error with commit %s missing: %d reports", old, len(e))
			}
			agree("a commit missing", broken)
		})
	}
	if reportStats.workers.Load() == workersBefore || reportStats.owner.Load() == ownerBefore {
		t.Fatalf("workers made %d reports, the owner %d: both paths must run", reportStats.workers.Load()-workersBefore, reportStats.owner.Load()-ownerBefore)
	}
}

// pagesHistory makes a history of 12 files and 140 pages citing them,
// with random edits, renames and deletes of files, page edits and
// renames, and a merged side branch.
func pagesHistory(t *testing.T, seed uint64) (*repoT, []string) {
	r := &refRepo{repoT: newRepo(t), rnd: rand.New(rand.NewPCG(seed, 19)), files: map[string][]string{}}
	for i := 0; i < 12; i++ {
		q := r.newName()
		r.files[q] = splitKeep(lines(20+r.rnd.IntN(20), q))
	}
	r.flush()
	var pages []string
	writePage := func(i int, round int) {
		names := r.names()
		a, b := names[r.rnd.IntN(len(names))], names[r.rnd.IntN(len(names))]
		s := 1 + r.rnd.IntN(15)
		src := []string{a, fmt.Sprintf("%s:%d-%d", b, s, s+3)}
		if i%7 == 0 {
			src = append(src, filepath.ToSlash(filepath.Dir(a)))
		}
		body := fmt.Sprintf("Round %d. See `%s`.", round, names[r.rnd.IntN(len(names))])
		r.write(pages[i], page(src, body))
	}
	// More than two of workpool's batches of 64, so workers run at once.
	for i := 0; i < 140; i++ {
		pages = append(pages, fmt.Sprintf("EchoesVault/pages/p-%03d.md", i))
		writePage(i, 0)
	}
	r.commit("files and pages")
	for i := 0; i < 30; i++ {
		switch {
		case i == 15:
			r.git("checkout", "-q", "-b", "side")
			for j := 0; j < 3; j++ {
				r.op(100 + j)
				writePage(r.rnd.IntN(len(pages)), 100+j)
				r.commit(fmt.Sprintf("side page %d", j))
			}
			r.git("checkout", "-q", "main")
			r.n++
			if _, err := r.s.Run(r.dir, r.env(), nil, "merge", "-q", "--no-ff", "-m", "merge side", "side"); err != nil {
				r.git("merge", "--abort")
			}
			r.files = map[string][]string{}
			for _, p := range strings.Fields(r.git("ls-files", "src")) {
				r.files[p] = splitKeep(r.read(p))
			}
		case i%5 == 0:
			writePage(r.rnd.IntN(len(pages)), i)
			r.commit(fmt.Sprintf("page edit %d", i))
		case i == 22:
			// A page renamed: it is asked for under its new name.
			n := r.rnd.IntN(len(pages))
			to := fmt.Sprintf("EchoesVault/pages/renamed-%02d.md", n)
			r.git("mv", pages[n], to)
			pages[n] = to
			r.commit("rename a page")
		case i == 25:
			// A page confirmed: verified: moves its anchor.
			n := r.rnd.IntN(len(pages))
			text := r.read(pages[n])
			r.write(pages[n], strings.Replace(text, "---\n\n", "verified: "+r.git("rev-parse", "HEAD~3")+"\n---\n\n", 1))
			r.commit("confirm a page")
		default:
			r.op(i)
		}
	}
	return r.repoT, pages
}

// TestCheckPrefaultsForManyDocs: a Check of many documents, whose walk
// grows the heap with the history, asks gctune to populate the heap it
// will grow to (heapEstimate of the commit-graph's commits and its
// documents), before the walk; a Check of a few does not ask.
func TestCheckPrefaultsForManyDocs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	var asked []int
	defer func(f func(int), w func() bool) { prefaultHeap, prefaultWanted = f, w }(prefaultHeap, prefaultWanted)
	prefaultHeap = func(n int) { asked = append(asked, n) }
	prefaultWanted = func() bool { return true }
	r, pages := pagesHistory(t, 1)
	r.git("commit-graph", "write", "--reachable")
	head := r.git("rev-parse", "HEAD")
	var docs []Doc
	for _, p := range pages {
		if text, err := r.s.Run(r.dir, nil, nil, "show", head+":"+p); err == nil {
			docs = append(docs, Doc{Path: p, Text: text})
		}
	}
	repo := r.openAt(r.dir)
	tr := repo.NewTreeReader()
	commits := tr.GraphCommits()
	tr.Close()
	if commits == 0 {
		t.Fatal("no commit-graph")
	}
	if _, err := Check(repo, head, docs[:3]); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 0 {
		t.Fatalf("a Check of 3 documents asked to prefault %v", asked)
	}
	if _, err := Check(repo, head, docs); err != nil {
		t.Fatal(err)
	}
	if want := heapEstimate(commits, len(docs)); len(asked) != 1 || asked[0] != want {
		t.Fatalf("a Check of %d documents over %d commits asked %v, want [%d]", len(docs), commits, asked, want)
	}
}
