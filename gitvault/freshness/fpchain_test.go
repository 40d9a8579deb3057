package freshness

import (
	"slices"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The first-parent pass answers entry lookups (leaves) and what a commit
// changed (chainChanges) from its diffs; both must be what the tree
// lookups and changedPaths give, through edits, deletions, a rename, a
// file that becomes a directory and back, and an executable bit.
func TestChainPassAgreesWithTrees(t *testing.T) {
	k := chainHistory(t)
	if err := k.indexTo(len(k.fp.list)); err != nil {
		t.Fatal(err)
	}
	if len(k.fp.list) != 6 || k.fp.indexed != 5 || len(k.leaves) == 0 {
		t.Fatalf("chain of %d, %d indexed, %d leaves", len(k.fp.list), k.fp.indexed, len(k.leaves))
	}
	for key, it := range k.leaves {
		want, ok, err := k.tr.Entry(key.tree, key.path)
		if err != nil || !ok || want != it {
			t.Errorf("leaves %s:%s = %+v; the tree has %+v (%v, %v)", key.tree, key.path, it, want, ok, err)
		}
	}
	for i := 0; i < k.fp.indexed; i++ {
		c := k.fp.list[i]
		got, ok := k.chainChanges(c)
		if !ok {
			t.Fatalf("commit %d not answered by the chain", i)
		}
		set, err := k.changedPaths(k.fp.list[i+1].Tree, c.Tree)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for p := range set {
			want = append(want, p)
		}
		slices.Sort(want)
		got = slices.Sorted(slices.Values(got))
		if !slices.Equal(got, want) {
			t.Errorf("commit %d changed %q; changedPaths says %q", i, got, want)
		}
	}
}

// chainEntry answers a tree lookup at a position of the chain from the
// chain's diffs; each answer must be what the tree holds there, and the
// files changed at or below a position must be answered without a tree
// read. Directories, removed files and files unchanged since the root
// are left to the tree, and nothing is answered past what is indexed or
// while a position is skipped (changed-path filters).
func TestChainEntryAgreesWithTrees(t *testing.T) {
	k := chainHistory(t)
	if err := k.indexTo(3); err != nil {
		t.Fatal(err)
	}
	if _, ok := k.chainEntry(3, "a/x.go"); ok {
		t.Error("answered at a position not indexed yet")
	}
	if err := k.indexTo(len(k.fp.list)); err != nil {
		t.Fatal(err)
	}
	paths := []string{"a/x.go", "a/y.go", "b", "b/inner.go", "c/y.go", "keep.go", "a", "c", "nothing.go"}
	answered := 0
	for pos := 0; pos < k.fp.indexed; pos++ {
		tree := k.fp.list[pos].Tree
		for _, p := range paths {
			want, has, err := k.tr.Entry(tree, p)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := k.chainEntry(pos, p)
			if !ok {
				// Every file that changes at or below pos and is there
				// must be answered.
				if has && isFile(want.Mode) && slices.ContainsFunc(k.fp.ix[p], func(i int) bool { return i >= pos }) {
					t.Errorf("position %d: %s (changed below) not answered", pos, p)
				}
				continue
			}
			answered++
			if !has || got != want {
				t.Errorf("position %d: chainEntry(%s) = %+v; the tree has %+v (%v)", pos, p, got, want, has)
			}
		}
	}
	if answered < 8 {
		t.Errorf("only %d lookups answered from the chain", answered)
	}
	if _, ok := k.chainEntry(0, "keep.go"); ok {
		t.Error("a file unchanged since the root answered from the chain")
	}
	k.fp.skipped = map[int]gitrepo.ChangedPathFilter{2: {}}
	if _, ok := k.chainEntry(0, "a/x.go"); ok {
		t.Error("answered while a position is skipped")
	}
}

// chainHistory builds the history both chain tests read (edits,
// deletions, a rename, a file that becomes a directory and back, an
// executable bit, a file never changed after the root) and returns a
// checker whose first-parent chain from HEAD is walked, not yet diffed.
func chainHistory(t *testing.T) *checker {
	t.Helper()
	r := newRepo(t)
	r.write("a/x.go", lines(5, "x"))
	r.write("a/y.go", lines(5, "y"))
	r.write("b", "file\n")
	r.write("keep.go", "never changed\n")
	r.commit("root")
	r.write("a/x.go", lines(6, "x"))
	r.commit("edit")
	r.git("rm", "-q", "a/y.go")
	r.write("c/y.go", lines(5, "y"))
	r.commit("rename")
	r.git("rm", "-q", "b")
	r.write("b/inner.go", "dir now\n")
	r.commit("file to directory")
	r.git("update-index", "--chmod=+x", "a/x.go")
	r.commit("mode")
	r.git("rm", "-q", "-r", "b")
	r.write("b", "file again\n")
	r.write("a/x.go", lines(2, "x"))
	r.commit("directory to file")

	repo := r.open()
	k := newChecker(repo)
	t.Cleanup(func() { k.tr.Close() })
	var err error
	if k.target, err = k.header(r.git("rev-parse", "HEAD")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.fpPos("0000000000000000000000000000000000000000"); err != nil {
		t.Fatal(err)
	}
	return k
}
