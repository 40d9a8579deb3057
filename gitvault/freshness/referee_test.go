package freshness

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The referee is real git (issue 18, "Tests"): on random histories of
// edits, renames (pure, and with an edit), deletes, line moves and
// merges, every citation of a file at the anchor gets the verdict git
// implies:
//   - fresh exactly when the path has the same blob at the anchor and HEAD;
//   - moved/drifted to Q exactly when git log --follow ANCHOR..HEAD -- Q
//     traces Q back to the cited path (moved when the blob is the same);
//   - missing exactly when no path at HEAD traces back to it;
//   - the commits of a drifted file are those of git log --follow
//     ANCHOR..HEAD -- Q;
//   - cited lines of a file still at its path are fresh exactly when git
//     blame --reverse --first-parent ANCHOR..HEAD -L S,E reports HEAD for
//     every one of them (each line survives to HEAD).

type refRepo struct {
	*repoT
	rnd   *rand.Rand
	files map[string][]string // the work tree's files
	next  int
}

func (r *refRepo) flush() {
	for p, l := range r.files {
		r.write(p, strings.Join(l, ""))
	}
}

func (r *refRepo) names() []string {
	var out []string
	for p := range r.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (r *refRepo) newName() string {
	r.next++
	return fmt.Sprintf("src/d%d/f%d.txt", r.next%3, r.next)
}

// op applies one random change and commits it.
func (r *refRepo) op(i int) {
	names := r.names()
	p := names[r.rnd.IntN(len(names))]
	l := r.files[p]
	switch k := r.rnd.IntN(10); {
	case k < 3 && len(l) > 2: // edit one line
		j := r.rnd.IntN(len(l))
		l[j] = fmt.Sprintf("edit %d of %s\n", i, p)
	case k < 5: // insert lines
		j := r.rnd.IntN(len(l) + 1)
		ins := []string{fmt.Sprintf("ins %d a\n", i), fmt.Sprintf("ins %d b\n", i)}
		l = append(l[:j], append(ins, l[j:]...)...)
	case k < 6 && len(l) > 4: // delete a few lines
		j := r.rnd.IntN(len(l) - 2)
		l = append(l[:j], l[j+2:]...)
	case k < 7 && len(l) > 6: // move a block of lines elsewhere
		j := r.rnd.IntN(len(l) - 3)
		block := append([]string{}, l[j:j+3]...)
		rest := append(append([]string{}, l[:j]...), l[j+3:]...)
		at := r.rnd.IntN(len(rest) + 1)
		l = append(rest[:at], append(block, rest[at:]...)...)
	case k < 8 && len(names) > 2: // rename, sometimes with an edit
		q := r.newName()
		r.git("mv", p, q)
		delete(r.files, p)
		if r.rnd.IntN(2) == 0 && len(l) > 10 {
			l[r.rnd.IntN(len(l))] = fmt.Sprintf("renamed edit %d\n", i)
		}
		r.files[q] = l
		r.flush()
		r.commit(fmt.Sprintf("op %d: rename %s to %s", i, p, q))
		return
	case k < 9 && len(names) > 3: // delete
		r.git("rm", "-q", p)
		delete(r.files, p)
		r.commit(fmt.Sprintf("op %d: delete %s", i, p))
		return
	default: // a new file
		q := r.newName()
		r.files[q] = splitKeep(lines(8+r.rnd.IntN(10), q))
	}
	r.files[p] = l
	if r.files[p] == nil {
		delete(r.files, p)
	}
	r.flush()
	r.commit(fmt.Sprintf("op %d on %s", i, p))
}

func splitKeep(s string) []string { return splitLines(s) }

func TestRefereeRandomHistories(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	first := 1
	if v, err := strconv.Atoi(os.Getenv("FRESHNESS_REFEREE_FIRST_SEED")); err == nil {
		first = v // to explore more histories: FRESHNESS_REFEREE_FIRST_SEED=100
	}
	for seed := first; seed < first+seeds; seed++ {
		t.Run(strconv.Itoa(seed), func(t *testing.T) { refereeOnce(t, uint64(seed)) })
	}
}

// newRefRepo starts a random history: n files of 20 to 39 lines, then
// three random changes (ops 0 to 2), each a commit.
func newRefRepo(t *testing.T, seed, stream uint64, n int) *refRepo {
	r := &refRepo{repoT: newRepo(t), rnd: rand.New(rand.NewPCG(seed, stream)), files: map[string][]string{}}
	for i := 0; i < n; i++ {
		q := r.newName()
		r.files[q] = splitKeep(lines(20+r.rnd.IntN(20), q))
	}
	r.flush()
	r.commit("files")
	for i := 0; i < 3; i++ {
		r.op(i)
	}
	return r
}

func refereeOnce(t *testing.T, seed uint64) {
	r := newRefRepo(t, seed, 18, 5)
	anchor := r.git("rev-parse", "HEAD")
	atAnchor := map[string][]string{}
	for p, l := range r.files {
		atAnchor[p] = append([]string{}, l...)
	}
	for i := 3; i < 18; i++ {
		if i == 8 {
			// A side branch with its own changes, merged back (no fast-forward).
			r.git("checkout", "-q", "-b", "side")
			saved := map[string][]string{}
			for p, l := range r.files {
				saved[p] = append([]string{}, l...)
			}
			for j := 0; j < 3; j++ {
				r.op(100 + j)
			}
			sideFiles := r.files
			r.git("checkout", "-q", "main")
			r.files = saved
			// Main changes a file of its own so the merge is a real one.
			q := r.newName()
			r.files[q] = splitKeep(lines(5, q))
			r.flush()
			r.commit("main only")
			r.n++
			out, err := r.s.Run(r.dir, r.env(), nil, "merge", "-q", "--no-ff", "-m", "merge side", "side")
			if err != nil {
				// A conflict (both sides touched one file): no merge this time.
				r.git("merge", "--abort")
				_ = out
			}
			r.files = map[string][]string{}
			for _, p := range strings.Fields(r.git("ls-files")) {
				r.files[p] = splitKeep(r.read(p))
			}
			_ = sideFiles
			continue
		}
		r.op(i)
	}
	head := r.git("rev-parse", "HEAD")
	k := newTestChecker(t, r.repoT, head)
	// The origin of every path at HEAD, as git log --follow traces it.
	origin := map[string]string{}
	for _, q := range strings.Fields(r.git("ls-files")) {
		out := r.git("log", "--follow", "--name-status", "--format=", anchor+"..HEAD", "--", q)
		o := q
		if ls := strings.Split(strings.TrimSpace(out), "\n"); out != "" {
			f := strings.Split(ls[len(ls)-1], "\t")
			o = f[len(f)-1]
			if strings.HasPrefix(f[0], "R") && len(f) == 3 {
				o = f[1] // a rename: the history starts at its source
			}
		}
		// The oldest name in the range is where the history starts; it is
		// the cited path only if the anchor has it.
		if _, ok := atAnchor[o]; ok {
			origin[o] = q
		}
	}
	ac, err := k.header(anchor)
	if err != nil {
		t.Fatal(err)
	}
	var cited []string
	for p := range atAnchor {
		cited = append(cited, p)
	}
	sort.Strings(cited) // the random line picks below must not depend on map order
	for _, p := range cited {
		l := atAnchor[p]
		res, err := k.verdict(Citation{Path: p}, ac)
		if err != nil {
			t.Fatal(err)
		}
		q, traced := origin[p]
		aBlob := r.git("rev-parse", anchor+":"+p)
		switch {
		case !traced:
			if res.Verdict != Missing {
				t.Errorf("%s: %s %q, git log --follow traces no path at HEAD to it\n%s", p, res.Verdict, res.NewPath, r.git("log", "--oneline", "--graph", "--name-status", anchor+"..HEAD"))
			}
			continue
		case q == p && r.git("rev-parse", "HEAD:"+q) == aBlob:
			if res.Verdict != Fresh {
				t.Errorf("%s: %s, want fresh (same blob)", p, res.Verdict)
			}
		case q != p && r.git("rev-parse", "HEAD:"+q) == aBlob:
			if res.Verdict != Moved || res.NewPath != q {
				t.Errorf("%s: %s %q, want moved to %s", p, res.Verdict, res.NewPath, q)
			}
		default:
			if res.Verdict != Drifted || (q != p && res.NewPath != q) {
				t.Errorf("%s: %s %q, want drifted (at %s)", p, res.Verdict, res.NewPath, q)
				continue
			}
			want := strings.Fields(r.git("log", "--follow", "--format=%H", anchor+"..HEAD", "--", q))
			var got []string
			for _, c := range res.Commits {
				got = append(got, c.Hash)
			}
			if res.Count != len(want) || strings.Join(got, " ") != strings.Join(want[:min(len(want), MaxCommits)], " ") {
				t.Errorf("%s: commits %d %v, git log --follow: %v", p, res.Count, got, want)
			}
		}
		// Line citations of files still at their path.
		if q != p {
			continue
		}
		for n := 0; n < 4; n++ {
			s := 1 + r.rnd.IntN(len(l))
			e := min(len(l), s+r.rnd.IntN(4))
			res, err := k.verdict(Citation{Path: p, Start: s, End: e}, ac)
			if err != nil {
				t.Fatal(err)
			}
			out := r.git("-c", "diff.indentHeuristic=false", "blame", "--reverse", "--first-parent", "--porcelain",
				"-L", fmt.Sprintf("%d,%d", s, e), anchor+"..HEAD", "--", p)
			all := true
			for _, line := range strings.Split(out, "\n") {
				f := strings.Fields(line)
				if len(f) >= 3 && len(f[0]) == 40 && !strings.HasPrefix(line, "\t") {
					if f[0] != head {
						all = false
					}
				}
			}
			if (res.Verdict == Fresh) != all {
				t.Errorf("%s:%d-%d: %s, git blame --reverse: every line survives = %v\n%s\n%s", p, s, e, res.Verdict, all, out,
					r.git("log", "--first-parent", "-p", "--format=%H %s", anchor+"..HEAD", "--", p))
			}
		}
	}
}

func newTestChecker(t *testing.T, r *repoT, target string) *checker {
	t.Helper()
	repo := r.open()
	k := &checker{repo: repo, tr: repo.NewTreeReader(), ranges: map[string][]*gitrepoCommit{},
		chains: map[string][]*gitrepoCommit{}, infos: map[string]*gitrepoCommit{}, blobs: map[string][]string{},
		changes: map[string]map[string]bool{}, pairs: map[string]map[string]bool{}, chainIx: map[string]chainIndex{}, rangeIx: map[string]map[string][]*gitrepoCommit{}}
	t.Cleanup(func() { k.tr.Close() })
	var err error
	if k.shallow, err = repo.Shallow(); err != nil {
		t.Fatal(err)
	}
	if k.target, err = k.header(target); err != nil {
		t.Fatal(err)
	}
	return k
}
