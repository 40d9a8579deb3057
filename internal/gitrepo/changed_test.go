package gitrepo

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// TestChangedAgreesWithGit: TreeReader.Changed lists what git diff-tree
// -r lists between two trees (the old side of deletions, modifications
// and type changes as removed, the new side as added), for random trees
// of files, executables, symlinks and gitlinks under names that test
// git's tree order (a directory sorts as its name and "/"), file and
// directory swaps, and runs of unchanged entries of every length; with
// skipSame on and off.
func TestChangedAgreesWithGit(t *testing.T) {
	sb := gitrepotest.New(t)
	dir := sb.Init(t.TempDir() + "/r")
	rnd := gitrepotest.NewRand(1819)
	var blobs []string
	for i := 0; i < 6; i++ {
		out, err := sb.Run(dir, nil, []byte(fmt.Sprintf("blob %d\n", i)), "hash-object", "-w", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		blobs = append(blobs, strings.TrimSpace(out))
	}
	gitlink := strings.Repeat("ab", 20)
	names := []string{"a", "a.b", "a-b", "a0", "b", "d", "d.txt", "d-e", "e", "z"}
	for i := 0; i < 60; i++ {
		names = append(names, fmt.Sprintf("n%03d", i)) // long runs of plain entries
	}
	modes := []string{"100644", "100644", "100644", "100755", "120000", "160000"}
	files := map[string][2]string{} // path -> mode, id
	randPath := func() string {
		depth := 1 + rnd.Intn(3)
		var parts []string
		for j := 0; j < depth; j++ {
			parts = append(parts, gitrepotest.Pick(rnd, names))
		}
		return strings.Join(parts, "/")
	}
	put := func(p string, v [2]string) {
		// A path is a file or a directory, never both.
		for q := range files {
			if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				delete(files, q)
			}
		}
		files[p] = v
	}
	entry := func() [2]string {
		m := gitrepotest.Pick(rnd, modes)
		if m == "160000" {
			return [2]string{m, gitlink}
		}
		return [2]string{m, gitrepotest.Pick(rnd, blobs)}
	}
	for i := 0; i < 150; i++ {
		put(randPath(), entry())
	}
	writeTree := func() string {
		sb.Git(dir, "read-tree", "--empty")
		var in strings.Builder
		for p, v := range files {
			fmt.Fprintf(&in, "%s %s\t%s\n", v[0], v[1], p)
		}
		if _, err := sb.Run(dir, nil, []byte(in.String()), "update-index", "--index-info"); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(sb.Git(dir, "write-tree"))
	}
	trees := []string{writeTree()}
	for round := 0; round < 40; round++ {
		for n := 1 + rnd.Intn(4); n > 0; n-- {
			switch k := rnd.Intn(10); {
			case k < 5: // change one entry's content or mode
				var ps []string
				for p := range files {
					ps = append(ps, p)
				}
				sort.Strings(ps)
				if len(ps) > 0 {
					files[gitrepotest.Pick(rnd, ps)] = entry()
				}
			case k < 7: // a new path (may replace a file by a directory or back)
				put(randPath(), entry())
			default: // delete a path
				var ps []string
				for p := range files {
					ps = append(ps, p)
				}
				sort.Strings(ps)
				if len(ps) > 1 {
					delete(files, gitrepotest.Pick(rnd, ps))
				}
			}
		}
		trees = append(trees, writeTree())
	}
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func(v bool) { skipSameEntries = v }(skipSameEntries)
	for _, skip := range []bool{true, false} {
		skipSameEntries = skip
		tr := repo.NewTreeReader()
		pairs := [][2]string{{"", trees[0]}, {trees[0], ""}}
		for i := 1; i < len(trees); i++ {
			pairs = append(pairs, [2]string{trees[i-1], trees[i]}, [2]string{trees[i], trees[i-1]}, [2]string{trees[rnd.Intn(i)], trees[i]})
		}
		for _, pr := range pairs {
			removed, added, err := tr.Changed(pr[0], pr[1], "")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range removed {
				got = append(got, fmt.Sprintf("- %o %s %s", e.Mode, e.Hash, e.Path))
			}
			for _, e := range added {
				got = append(got, fmt.Sprintf("+ %o %s %s", e.Mode, e.Hash, e.Path))
			}
			a, b := pr[0], pr[1]
			const empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
			if a == "" {
				a = empty
			}
			if b == "" {
				b = empty
			}
			var want []string
			for _, l := range strings.Split(strings.TrimSpace(sb.Git(dir, "diff-tree", "-r", "--no-renames", "--no-abbrev", a, b)), "\n") {
				if l == "" {
					continue
				}
				f := strings.Fields(strings.SplitN(l, "\t", 2)[0])
				p := strings.SplitN(l, "\t", 2)[1]
				om, nm, oid, nid := strings.TrimPrefix(f[0], ":"), f[1], f[2], f[3]
				if om != "000000" {
					want = append(want, "- "+strings.TrimLeft(om, "0")+" "+oid+" "+p)
				}
				if nm != "000000" {
					want = append(want, "+ "+strings.TrimLeft(nm, "0")+" "+nid+" "+p)
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("skip=%v %s..%s:\nours:\n%s\ngit diff-tree:\n%s", skip, pr[0], pr[1], strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		tr.Close()
	}
}
