package freshness

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Page anchors on random histories (issue 18, "Speed"): the chain's pass
// (chainAnchors, linear histories) and the walk (pageAnchors, with the
// commit-graph's changed-path filters where present) must both give the
// anchor git gives: the newest commit that changed the page, a pure
// rename followed to the old name (git log --follow -M100%, the first
// commit not an exact rename). Each history is checked without a
// commit-graph, with one, with one carrying changed-path filters, and
// with filters of an unknown hash version (not used: the fallback). A
// filter "no" trusted where it must not be (another parent than the first,
// a damaged chunk) anchors a page too old, and fails here.

type anchorRepo struct {
	*repoT
	rnd   *rand.Rand
	pages []string // the pages' current paths
	rev   int
}

func (r *anchorRepo) pageText(i int) string {
	r.rev++
	return page([]string{"src/a.go"}, fmt.Sprintf("page %d, revision %d", i, r.rev))
}

// op makes one random commit: mostly code, sometimes a page edit, a
// page renamed (content intact) to another name or directory.
func (r *anchorRepo) op(n int) {
	i := r.rnd.IntN(len(r.pages))
	switch k := r.rnd.IntN(10); {
	case k < 5:
		r.write(fmt.Sprintf("src/f%d.go", r.rnd.IntN(6)), fmt.Sprintf("code %d\n", n))
	case k < 7:
		r.write(r.pages[i], r.pageText(i))
	case k < 8: // both at once
		r.write("src/a.go", fmt.Sprintf("code %d\n", n))
		r.write(r.pages[i], r.pageText(i))
	default:
		// Within the page's top directory, where exactRenameSource looks
		// (a move across top directories is taken for a new page, on
		// every variant alike).
		top, _, _ := strings.Cut(r.pages[i], "/")
		dir := []string{top, top + "/old"}[r.rnd.IntN(2)]
		q := fmt.Sprintf("%s/moved-%d-%d.md", dir, i, n)
		if err := os.MkdirAll(filepath.Join(r.dir, filepath.FromSlash(dir)), 0o755); err != nil {
			r.t.Fatal(err)
		}
		r.git("mv", r.pages[i], q)
		r.pages[i] = q
	}
	r.commit(fmt.Sprintf("op %d", n))
}

func TestPageAnchorsReferee(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := 1; seed <= seeds; seed++ {
		for _, merges := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/merges=%v", seed, merges), func(t *testing.T) { anchorsOnce(t, uint64(seed), merges) })
		}
	}
}

func anchorsOnce(t *testing.T, seed uint64, merges bool) {
	r := &anchorRepo{repoT: newRepo(t), rnd: rand.New(rand.NewPCG(seed, 18))}
	for i := 0; i < 6; i++ {
		dir := []string{"EchoesVault/pages", "notes"}[i%2]
		r.pages = append(r.pages, dir+"/p"+strconv.Itoa(i)+".md")
		r.write(r.pages[i], r.pageText(i))
	}
	r.write("src/a.go", "code\n")
	r.commit("root")
	for n := 0; n < 30; n++ {
		if merges && n%10 == 5 {
			r.git("checkout", "-q", "-b", "side"+strconv.Itoa(n))
			saved := append([]string{}, r.pages...)
			for j := 0; j < 3; j++ {
				r.op(1000 + 10*n + j)
			}
			r.git("checkout", "-q", "main")
			r.pages = saved
			r.write("src/main.go", fmt.Sprintf("main %d\n", n))
			r.commit("main only")
			r.n++
			if _, err := r.s.Run(r.dir, r.env(), nil, "merge", "-q", "--no-ff", "-m", "merge", "side"+strconv.Itoa(n)); err != nil {
				r.git("merge", "--abort")
			}
			r.pages = strings.Fields(r.git("ls-files", "EchoesVault", "notes"))
			sort.Strings(r.pages)
			continue
		}
		r.op(n)
	}
	head := r.git("rev-parse", "HEAD")
	var docs []Doc
	for _, p := range r.pages {
		docs = append(docs, Doc{Path: p, Text: r.git("show", head+":"+p)})
	}
	// git's answer, on a linear history (with merges --follow's walk is
	// not pageAnchors'; there the variants are compared with each other).
	var want []string
	if !merges {
		for _, p := range r.pages {
			out := r.git("log", "--follow", "-M100%", "--format=%H", "--name-status", "HEAD", "--", p)
			var c string
			for _, l := range strings.Split(out, "\n") {
				if len(l) == 40 && !strings.Contains(l, "\t") {
					c = l
					continue
				}
				if l != "" && !strings.HasPrefix(l, "R100\t") {
					break // the first change that is not an exact rename
				}
			}
			want = append(want, c)
		}
	}
	graph := filepath.Join(r.dir, ".git", "objects", "info", "commit-graph")
	var first []Anchor
	for _, variant := range []string{"none", "graph", "changed-paths", "damaged filters"} {
		os.Remove(graph)
		switch variant {
		case "graph":
			r.git("commit-graph", "write", "--reachable")
		case "changed-paths", "damaged filters":
			r.git("commit-graph", "write", "--reachable", "--changed-paths")
		}
		if variant == "damaged filters" {
			damageBloomVersion(t, graph)
		}
		for _, walk := range []bool{false, true} {
			k := newTestChecker(t, r.repoT, head)
			if (variant == "changed-paths") != k.tr.HasChangedPathFilters() {
				t.Fatalf("%s: filters read = %v", variant, k.tr.HasChangedPathFilters())
			}
			got := make([]Anchor, len(docs))
			cur := map[int]string{}
			for i, d := range docs {
				cur[i] = d.Path
			}
			if walk {
				if err := k.pageAnchors(cur, got); err != nil {
					t.Fatal(err)
				}
			} else {
				var err error
				if got, err = k.anchors(docs); err != nil {
					t.Fatal(err)
				}
			}
			for i, a := range got {
				if want != nil && a.Commit != want[i] {
					t.Errorf("%s (walk %v): %s anchored at %.7s, git at %.7s\n%s", variant, walk, docs[i].Path, a.Commit, want[i],
						r.git("log", "--follow", "-M100%", "--format=%H", "--name-status", "HEAD", "--", docs[i].Path))
				}
				if first != nil && a.Commit != first[i].Commit {
					t.Errorf("%s (walk %v): %s anchored at %.7s, without a graph at %.7s", variant, walk, docs[i].Path, a.Commit, first[i].Commit)
				}
			}
			if first == nil {
				first = got
			}
		}
	}
}

// damageBloomVersion sets the changed-path filters' hash version to one
// no reader knows (the checksum rewritten to match): the graph is still
// used, its filters not.
func damageBloomVersion(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i := 0; i < int(data[6]); i++ {
		e := data[8+i*12:]
		if binary.BigEndian.Uint32(e) == 0x42444154 { // "BDAT"
			binary.BigEndian.PutUint32(data[binary.BigEndian.Uint64(e[4:]):], 9)
			found = true
		}
	}
	if !found {
		t.Fatal("no BDAT chunk in git's commit-graph")
	}
	sum := sha1.Sum(data[:len(data)-20])
	copy(data[len(data)-20:], sum[:])
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
