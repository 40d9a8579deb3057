package freshness

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// isAncestor must not depend on committer dates: git's own date cut-off
// (and the checker's a..t walk) stops early when every date is equal and
// the commit asked about is far older than the other, so a verified:
// commit far behind HEAD looked outside HEAD's history. Real git makes
// the histories, every commit with the same GIT_COMMITTER_DATE; git
// merge-base --is-ancestor is the referee. Run with and without a
// commit-graph (its generation numbers are used when present).
func TestIsAncestorEqualDates(t *testing.T) {
	for _, graph := range []bool{false, true} {
		t.Run(fmt.Sprintf("graph=%v", graph), func(t *testing.T) {
			r := newRepo(t)
			commit := equalDateCommitter(t, r)
			var main []string
			for i := 0; i < 3; i++ {
				r.write("a.go", lines(5+i, "a"))
				main = append(main, commit(fmt.Sprintf("main %d", i)))
			}
			// A side branch from main[1], merged after a long run on main.
			r.git("checkout", "-q", "-b", "side", main[1])
			r.write("side.go", "side\n")
			side := commit("side")
			r.git("checkout", "-q", "main")
			for i := 3; i < 12; i++ {
				r.write("a.go", lines(5+i, "a"))
				main = append(main, commit(fmt.Sprintf("main %d", i)))
			}
			if _, err := r.s.Run(r.dir, sameDate, nil, "merge", "-q", "--no-ff", "-m", "merge side", "side"); err != nil {
				t.Fatal(err)
			}
			merge := r.git("rev-parse", "HEAD")
			r.write("b.go", "b\n")
			head := commit("after")
			if graph {
				r.git("commit-graph", "write", "--reachable")
			}
			all := append(append([]string{}, main...), side, merge, head)
			k := newTestChecker(t, r, head)
			for _, a := range all {
				for _, b := range all {
					_, err := r.s.Run(r.dir, nil, nil, "merge-base", "--is-ancestor", a, b)
					want := err == nil
					got, gerr := k.isAncestor(a, b)
					if gerr != nil {
						t.Fatal(gerr)
					}
					if got != want {
						t.Errorf("isAncestor(%s, %s) = %v, git merge-base --is-ancestor says %v", a[:7], b[:7], got, want)
					}
				}
			}
		})
	}
}

// The verdict side of the same bug: a page confirmed (verified:) at a
// commit far behind HEAD, all dates equal, is anchored at that commit.
func TestVerifiedEqualDates(t *testing.T) {
	r := newRepo(t)
	commit := equalDateCommitter(t, r)
	r.write("a.go", lines(10, "a"))
	commit("code")
	r.write(pg, page([]string{"a.go"}, ""))
	commit("page")
	r.write("a.go", lines(11, "a"))
	v := commit("change a")
	text, err := SetVerified(r.read(pg), v, "2026-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	// The confirmation is committed with nothing but verified: changed,
	// then a long run of commits that touch other files.
	r.write(pg, text)
	commit("confirm")
	for i := 0; i < 8; i++ {
		r.write("other.go", lines(i+1, "o"))
		commit(fmt.Sprintf("other %d", i))
	}
	rep := r.check(pg)[0]
	if !rep.Anchor.Verified || rep.Anchor.Commit != v || rep.Verdict != Fresh {
		t.Fatalf("verified anchor with equal dates: %+v verdict %s", rep.Anchor, rep.Verdict)
	}
}

// between (git's a..t, for ranges with merges) on a history whose dates
// are all equal, so the walk order says nothing: a side branch forks from
// the root and is merged far above it. Every pair agrees with git rev-list
// a..t, with and without a commit-graph (the walk stopped as soon as only
// a's ancestors were queued, before painting reached an old commit t's
// side had walked).
func TestBetweenEqualDates(t *testing.T) {
	for _, graph := range []bool{false, true} {
		t.Run(fmt.Sprintf("graph=%v", graph), func(t *testing.T) {
			r := newRepo(t)
			commit := equalDateCommitter(t, r)
			r.write("a.go", "a\n")
			all := []string{commit("root"), commit("p1")}
			r.git("checkout", "-q", "-b", "side")
			all = append(all, commit("side 1"), commit("side 2"))
			r.git("checkout", "-q", "main")
			for i := 0; i < 8; i++ {
				all = append(all, commit(fmt.Sprintf("main %d", i)))
			}
			if _, err := r.s.Run(r.dir, sameDate, nil, "merge", "-q", "--no-ff", "-m", "merge side", "side"); err != nil {
				t.Fatal(err)
			}
			all = append(all, r.git("rev-parse", "HEAD"), commit("after"))
			if graph {
				r.git("commit-graph", "write", "--reachable")
			}
			k := newTestChecker(t, r, all[len(all)-1])
			for _, a := range all {
				for _, b := range all {
					want := strings.Fields(r.git("rev-list", a+".."+b))
					sort.Strings(want)
					cs, err := k.between(a, b)
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, c := range cs {
						got = append(got, c.Hash)
					}
					sort.Strings(got)
					if strings.Join(got, " ") != strings.Join(want, " ") {
						t.Errorf("between(%s, %s): %d commits, git rev-list %s..%s: %d", a[:7], b[:7], len(got), a[:7], b[:7], len(want))
					}
				}
			}
		})
	}
}

// sameDate gives a git command the one author and committer date every
// commit of these tests has.
var sameDate = []string{"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"}

// equalDateCommitter returns a function that commits the work tree of r
// (empty commits allowed) at sameDate and returns the new commit's id.
func equalDateCommitter(t *testing.T, r *repoT) func(msg string) string {
	return func(msg string) string {
		t.Helper()
		r.git("add", "-A")
		if _, err := r.s.Run(r.dir, sameDate, nil, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
			t.Fatal(err)
		}
		return r.git("rev-parse", "HEAD")
	}
}
