package review

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestLogFollowAhead: log --follow gives the same entries, byte for byte,
// whether the walk runs ahead on its own goroutine or in the loop; with
// --limit (the walk ahead is stopped early and waited for); and when an
// object the walk needs is missing, the same error after the same steps.
func TestLogFollowAhead(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	defer func(v bool) { followAhead = v }(followAhead)
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			rr := branchyHistory(t, seed)
			// The walk ahead is what runs here: loose objects, no graph.
			repo, err := openRepo(rr.e)
			if err != nil {
				t.Fatal(err)
			}
			w := &historyWalk{repo: repo, seen: map[string]bool{}}
			w.tr = w.repo.NewTreeReader()
			followAhead = true
			f, err := newFollowFeed(w, strings.TrimSpace(rr.git("rev-parse", "HEAD")))
			if err != nil {
				t.Fatal(err)
			}
			if f.seq != nil {
				t.Fatal("the feed did not walk ahead on a history without a commit-graph")
			}
			f.close()
			w.tr.Close()

			paths := rr.everyPagePath()
			for _, limit := range []int{0, 1, 3} {
				for _, p := range paths {
					opt := LogOptions{Target: p, Follow: true, Limit: limit}
					followAhead = false
					want, err := Log(rr.e, opt)
					if err != nil {
						t.Fatal(err)
					}
					followAhead = true
					got, err := Log(rr.e, opt)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%+v: walking ahead gave\n%+v\nthe loop gave\n%+v", opt, got, want)
					}
				}
			}

			// An old commit's object gone: both walks fail, with the
			// same error (the loop reads it when the walk reaches it).
			root := strings.TrimSpace(rr.git("rev-list", "--max-parents=0", "HEAD"))
			obj := filepath.Join(rr.dir, ".git", "objects", root[:2], root[2:])
			if err := os.Remove(obj); err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, ahead := range []bool{false, true} {
				followAhead = ahead
				_, err := Log(rr.e, LogOptions{Target: paths[0], Follow: true})
				if err == nil {
					t.Fatalf("ahead=%v: no error with commit %s missing", ahead, root)
				}
				errs = append(errs, err.Error())
			}
			if errs[0] != errs[1] {
				t.Fatalf("different errors: loop %q, ahead %q", errs[0], errs[1])
			}
			// With --limit 1 the newest change is shown before the walk
			// reaches the missing commit: no error either way.
			shown := 0
			for _, p := range paths {
				opt := LogOptions{Target: p, Follow: true, Limit: 1}
				followAhead = false
				want, werr := Log(rr.e, opt)
				followAhead = true
				got, gerr := Log(rr.e, opt)
				if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%+v with a commit missing: ahead %+v, %v; loop %+v, %v", opt, got, gerr, want, werr)
				}
				if werr == nil && len(want.Entries) == 1 {
					shown++
				}
			}
			if shown == 0 {
				t.Fatal("no path showed a change before the missing commit: the case tests nothing")
			}
		})
	}
}

// TestLogFollowAheadPanic: a panic of the walk ahead is raised by Log on
// its caller's goroutine (which can recover, as the MCP server does),
// not on the walk's, which would end the process.
func TestLogFollowAheadPanic(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	defer func(v bool, n int) { followAhead, walkAheadPanic = v, n }(followAhead, walkAheadPanic)
	rr := branchyHistory(t, 1)
	followAhead, walkAheadPanic = true, 3
	got := func() (v any) {
		defer func() { v = recover() }()
		Log(rr.e, LogOptions{Target: rr.everyPagePath()[0], Follow: true})
		return nil
	}()
	if got != "walk ahead: injected" {
		t.Fatalf("recovered %v, want the walk's panic", got)
	}
	walkAheadPanic = 0
	if _, err := Log(rr.e, LogOptions{Target: rr.everyPagePath()[0], Follow: true}); err != nil {
		t.Fatalf("after the panic: %v", err)
	}
}
