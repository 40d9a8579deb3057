package gitrepo

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// go-git's plumbing/object decoded the objects before objects.go; it is
// linked into these tests only, as the referee of the decoders there.

func memObject(typ plumbing.ObjectType, data []byte) keyedObject {
	mo := &plumbing.MemoryObject{}
	mo.SetType(typ)
	mo.Write(data)
	return keyedObject{mo, plumbing.NewHash(strings.Repeat("12", 20))}
}

func sameInstant(a, b time.Time) bool {
	_, oa := a.Zone()
	_, ob := b.Zone()
	return a.Equal(b) && oa == ob && a.Location().String() == b.Location().String()
}

// checkDecodeCommit fails t when decodeCommit and go-git's Commit.Decode
// disagree on data: one refusing what the other reads, or any field read.
func checkDecodeCommit(t *testing.T, data []byte) {
	t.Helper()
	id := strings.Repeat("12", 20)
	got, err := decodeCommit(id, data)
	var c object.Commit
	gerr := c.Decode(memObject(plumbing.CommitObject, data))
	if (err == nil) != (gerr == nil) {
		t.Fatalf("%q: decodeCommit error %v, go-git error %v", data, err, gerr)
	}
	if err != nil {
		return
	}
	var parents []string
	for _, p := range c.ParentHashes {
		parents = append(parents, p.String())
	}
	if got.Hash != id || got.Tree != c.TreeHash.String() || !slices.Equal(got.Parents, parents) ||
		got.AuthorName != c.Author.Name || got.AuthorEmail != c.Author.Email || got.Message != c.Message ||
		!sameInstant(got.AuthorDate, c.Author.When) || !sameInstant(got.CommitDate, c.Committer.When) {
		t.Fatalf("%q:\n got %+v\n go-git %s %v %q %q %v %v %q", data, got, c.TreeHash, parents,
			c.Author.Name, c.Author.Email, c.Author.When, c.Committer.When, c.Message)
	}
}

// decodeCommitCases add to commitParseCases the layouts parseCommit
// leaves to decodeCommit: signed and merge-tag headers with continuation
// lines, headers out of order, missing or malformed tree and parent
// lines, blank and unterminated lines in each stage.
var decodeCommitCases = func() []string {
	id, id2 := strings.Repeat("ab", 20), strings.Repeat("CD", 20)
	sig := "A U Thor <a@x> 1600000000 +0200"
	return append(slices.Clone(commitParseCases),
		"tree "+id+"\nparent "+id2+"\nauthor "+sig+"\ncommitter "+sig+"\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n",
		"tree "+id+"\nauthor "+sig+"\ncommitter "+sig+"\nmergetag object "+id+"\n type commit\n tag v1\n\nmerge\n",
		"tree "+id+"\nauthor "+sig+"\ncommitter "+sig+"\nmergetag a\n b\nmergetag c\n d\nencoding x\nencoding y\n\nm",
		"tree "+id+"\nauthor "+sig+"\ncommitter "+sig+"\nx-extra one\n two\n\nm",
		"tree "+id+"\ncommitter C <c> 5 +0100\nauthor "+sig+"\n\nreversed\n",
		"tree "+id+"\nauthor "+sig+"\nparent "+id+"\ncommitter "+sig+"\n\nlate parent\n",
		"tree "+id+"\nparent "+id+"\n",
		"tree "+id+"\nparent "+id,
		"tree "+id+"\nparent xyz\n\nm",
		"tree "+id+"\nparent\n\nm",
		"tree "+id+"\n\nno headers\n",
		"tree "+id,
		"tree "+id+"\n",
		"tree "+id2+"\n\n",
		"parent "+id+"\ntree "+id+"\n\nm",
		"tree xyz\n\nm",
		"tree\n",
		"\n",
		"tree "+id+"\nauthor "+sig+"\n",
		"tree "+id+"\nauthor "+sig,
		"tree "+id+"\nauthor "+sig+"\ncommitter "+sig+"\n \n\nm",
		"tree "+id+"\nauthor "+sig+"\ncommitter "+sig+"\ntree "+id+"\nauthor B <b> 1 +0000\n\nm",
		"tree "+id+"\r\nauthor "+sig+"\n\nm",
		"tree "+id+"\nauthor "+sig+"\nauthor B <b> 1 +0000\ncommitter "+sig+"\n\ntwo authors\n",
		"tree "+id+"\nauthor "+sig+"\ncommitter "+sig+"\ncommitter B <b> 1 +0000\n\ntwo committers\n",
	)
}()

func TestDecodeCommitMatchesGoGit(t *testing.T) {
	for _, c := range decodeCommitCases {
		checkDecodeCommit(t, []byte(c))
	}
}

func FuzzDecodeCommit(f *testing.F) {
	for _, c := range decodeCommitCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecodeCommit(t, data) })
}

func checkDecodeTag(t *testing.T, data []byte) {
	t.Helper()
	got, err := decodeTagTarget(data)
	var tag object.Tag
	gerr := tag.Decode(memObject(plumbing.TagObject, data))
	if (err == nil) != (gerr == nil) {
		t.Fatalf("%q: decodeTagTarget error %v, go-git error %v", data, err, gerr)
	}
	if err == nil && got != tag.Target {
		t.Fatalf("%q: target %s, go-git %s", data, got, tag.Target)
	}
}

var decodeTagCases = func() []string {
	id := strings.Repeat("ab", 20)
	return []string{
		"object " + id + "\ntype commit\ntag v1\ntagger T <t> 1 +0000\n\nmessage\n",
		"object " + strings.ToUpper(id) + "\ntype tree\ntag v1\n",
		"object " + id,
		"object " + id + "\n",
		"object " + id + "\ntype commit",
		"object " + id + "\ntype nonsense\ntag v1\n",
		"object " + id + "\ntag v1\ntype commit\n",
		"object " + id + "\ntype commit\n\n",
		"object " + id + "\n\n",
		"type commit\nobject " + id + "\n",
		"object xyz\ntype commit\ntag v\n",
		"object " + id + "\ntype commit\ntag v1\ngpgsig-sha256 a\n b\n\nm",
		"",
		"\n",
	}
}()

func TestDecodeTagMatchesGoGit(t *testing.T) {
	for _, c := range decodeTagCases {
		checkDecodeTag(t, []byte(c))
	}
}

func FuzzDecodeTagTarget(f *testing.F) {
	for _, c := range decodeTagCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecodeTag(t, data) })
}

func checkDecodeTree(t *testing.T, data []byte) {
	t.Helper()
	got, err := decodeTree(data)
	var tree object.Tree
	gerr := tree.Decode(memObject(plumbing.TreeObject, data))
	if (err == nil) != (gerr == nil) {
		t.Fatalf("%q: decodeTree error %v, go-git error %v", data, err, gerr)
	}
	if err != nil {
		return
	}
	if len(got) != len(tree.Entries) {
		t.Fatalf("%q: %d entries, go-git %d", data, len(got), len(tree.Entries))
	}
	for i, e := range tree.Entries {
		if got[i] != (TreeItem{Name: e.Name, Mode: e.Mode, Hash: e.Hash.String()}) {
			t.Fatalf("%q: entry %d %+v, go-git %+v", data, i, got[i], e)
		}
	}
}

var decodeTreeCases = func() []string {
	id := strings.Repeat("\x01", 20)
	return []string{
		"100644 a.txt\x00" + id + "40000 dir\x00" + id + "120000 link\x00" + id + "160000 sub\x00" + id,
		"100755 x\x00" + id + "100664 y\x00" + id + "40755 d\x00" + id + "777 odd\x00" + id,
		"100644 a\x00" + id[:10],
		"100644 \x00" + id,
		"100644 a",
		"100644",
		"abc a\x00" + id,
		" a\x00" + id,
		"",
	}
}()

func TestDecodeTreeMatchesGoGit(t *testing.T) {
	for _, c := range decodeTreeCases {
		checkDecodeTree(t, []byte(c))
	}
}

func FuzzDecodeTree(f *testing.F) {
	for _, c := range decodeTreeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecodeTree(t, data) })
}

// TestMergeBasesMatchGit: on random histories of merges (criss-cross
// ones among them, so that some pairs have two best common ancestors),
// MergeBases answers git merge-base --all for random pairs, read from
// the objects and again through a commit-graph.
func TestMergeBasesMatchGit(t *testing.T) {
	s := gitrepotest.New(t)
	seeds := uint64(3)
	if testing.Short() || underWineGit() {
		seeds = 1 // every git call from wine crosses the spool bridge; the code is the same
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rnd := gitrepotest.NewRand(seed)
			dir := s.Init(filepath.Join(t.TempDir(), "r"))
			// A fast-import stream: 60 commits, each with one to three
			// parents among the ten before it, dates never decreasing
			// (some equal), each on a branch of its own so all are kept.
			var b strings.Builder
			const n = 60
			date := 1700000000
			for i := 0; i < n; i++ {
				date += rnd.Intn(3) * 60
				fmt.Fprintf(&b, "commit refs/heads/c%d\nmark :%d\ncommitter T <t@x> %d +0000\ndata 2\nc\n", i, i+1, date)
				if i > 0 {
					first := i - 1 - rnd.Intn(min(i, 10))
					fmt.Fprintf(&b, "from :%d\n", first+1)
					for k := rnd.Intn(3); k > 0; k-- {
						if p := i - 1 - rnd.Intn(min(i, 10)); p != first {
							fmt.Fprintf(&b, "merge :%d\n", p+1)
						}
					}
				}
				fmt.Fprintf(&b, "M 100644 inline f\ndata %d\n%d\n", len(fmt.Sprint(i))+1, i)
			}
			if _, err := s.Run(dir, nil, []byte(b.String()), "fast-import", "--quiet"); err != nil {
				t.Fatal(err)
			}
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("c%d", i)
			}
			ids := strings.Fields(s.Git(dir, append([]string{"rev-parse"}, names...)...))
			if len(ids) != n {
				t.Fatalf("rev-parse: %d ids for %d commits", len(ids), n)
			}
			type pair struct{ a, b string }
			var pairs []pair
			want := map[pair]string{}
			for k := 0; k < 40; k++ {
				p := pair{ids[rnd.Intn(n)], ids[rnd.Intn(n)]}
				out, err := s.Run(dir, nil, nil, "merge-base", "--all", p.a, p.b)
				if err != nil && out != "" {
					t.Fatal(err)
				}
				bases := strings.Fields(out)
				slices.Sort(bases)
				pairs, want[p] = append(pairs, p), strings.Join(bases, " ")
			}
			check := func(label string) {
				repo, err := Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				multi := 0
				for _, p := range pairs {
					got, err := repo.MergeBases(p.a, p.b)
					if err != nil {
						t.Fatalf("%s: merge base of %s and %s: %v", label, p.a[:7], p.b[:7], err)
					}
					if strings.Join(got, " ") != want[p] {
						t.Fatalf("%s: merge base of %s and %s: %v, git %q", label, p.a[:7], p.b[:7], got, want[p])
					}
					if len(got) > 1 {
						multi++
					}
				}
				t.Logf("%s: %d pairs, %d with more than one base", label, len(pairs), multi)
			}
			check("objects")
			s.Git(dir, "commit-graph", "write", "--reachable")
			check("commit-graph")
		})
	}
}

// validTreePathCases: the names git refuses to check out (verify_path),
// the spellings of .git on HFS+ and NTFS, and near misses.
var validTreePathCases = []string{
	"a", "a/b", "dir/file.md", ".gitignore", ".github/x", "git~2", ".gitx", "gitx~1",
	".git", ".GIT", "Git~1", "a/.git/b", ".git.", ".git ", ".git. .", ".git::$INDEX_ALLOCATION", "git~1:x",
	".g\u200cit", "\u200c.git\u200c", ".gi\ufefft", ".gi\u00eft", "a\\.git", "a\\..\\b",
	".", "..", "a/./b", "a/../b", "./a", "a/..", "", "/", "//", "\\", "a\x01b", "a\x7fb", "tab\there",
	"C:\\x", "C:", "\\\\server\\share\\x",
}

func checkValidTreePath(t *testing.T, p string) {
	t.Helper()
	err := validTreePath(p)
	_, gerr := (&object.Tree{}).FindEntry(p)
	goInvalid := gerr != nil && strings.HasPrefix(gerr.Error(), "invalid path")
	if (err != nil) != goInvalid {
		t.Fatalf("%q: validTreePath %v, go-git %v", p, err, gerr)
	}
}

func TestValidTreePathMatchesGoGit(t *testing.T) {
	for _, p := range validTreePathCases {
		checkValidTreePath(t, p)
	}
}

func FuzzValidTreePath(f *testing.F) {
	for _, p := range validTreePathCases {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) { checkValidTreePath(t, p) })
}

// TestMergeBasesBoundedByGeneration: a criss-cross merge on top of a long
// history has two merge-base candidates, and telling that neither is an
// ancestor of the other reads no commit below them where the
// commit-graph gives generation numbers (it read the whole history
// before); without a graph the walk goes down as before, and the
// answers agree with git merge-base --all either way.
func TestMergeBasesBoundedByGeneration(t *testing.T) {
	s := gitrepotest.New(t)
	dir := s.Init(filepath.Join(t.TempDir(), "r"))
	const base = 400
	var b strings.Builder
	date := 1700000000
	commit := func(ref string, mark int, from int, merge int) {
		date += 60
		fmt.Fprintf(&b, "commit %s\nmark :%d\ncommitter T <t@x> %d +0000\ndata 2\nc\n", ref, mark, date)
		if from > 0 {
			fmt.Fprintf(&b, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(&b, "merge :%d\n", merge)
		}
		fmt.Fprintf(&b, "M 100644 inline f\ndata %d\n%d\n", len(fmt.Sprint(mark))+1, mark)
	}
	for i := 1; i <= base; i++ {
		commit("refs/heads/main", i, i-1, 0)
	}
	commit("refs/heads/a", base+1, base, 0)        // a1
	commit("refs/heads/b", base+2, base, 0)        // b1
	commit("refs/heads/a", base+3, base+1, base+2) // a2 = a1 + b1
	commit("refs/heads/b", base+4, base+2, base+1) // b2 = b1 + a1
	if _, err := s.Run(dir, nil, []byte(b.String()), "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	ids := strings.Fields(s.Git(dir, "rev-parse", "a", "b", "a~1", "b~1"))
	a2, b2, a1, b1 := ids[0], ids[1], ids[2], ids[3]
	want := strings.Fields(s.Git(dir, "merge-base", "--all", a2, b2))
	slices.Sort(want)
	if len(want) != 2 {
		t.Fatalf("git merge-base --all: %v, want the two criss-cross bases", want)
	}
	check := func(label string, maxReads int) {
		repo, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := repo.MergeBases(a2, b2)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: MergeBases = %v, %v; git %v", label, got, err, want)
		}
		tr := repo.NewTreeReader()
		defer tr.Close()
		reads := 0
		header := func(h string) (*Commit, error) {
			reads++
			return tr.CommitHeader(h)
		}
		for _, p := range [][2]string{{a1, b1}, {b1, a1}} {
			ok, err := reaches(header, tr.Generation, nil, p[0], p[1])
			if err != nil || ok {
				t.Fatalf("%s: reaches(%s, %s) = %v, %v; neither is the other's ancestor", label, p[0][:7], p[1][:7], ok, err)
			}
		}
		if ok, err := reaches(header, tr.Generation, nil, a2, a1); err != nil || !ok {
			t.Fatalf("%s: reaches(a2, a1) = %v, %v; a1 is a2's parent", label, ok, err)
		}
		if reads > maxReads {
			t.Fatalf("%s: %d commits read, want at most %d", label, reads, maxReads)
		}
		t.Logf("%s: %d commits read", label, reads)
	}
	check("objects", 3*(base+4)) // no generation numbers: the whole history, as before
	s.Git(dir, "commit-graph", "write", "--reachable")
	check("commit-graph", 2) // a2 and nothing below the candidates
}
