package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// lsStage parses `git ls-files -s -z` into "mode hash stage\tpath" lines.
func lsStage(sb *gitrepotest.Sandbox, dir string, env []string) []string {
	out, err := sb.Run(dir, env, nil, "ls-files", "-s", "-z")
	if err != nil {
		panic(err)
	}
	return splitZ(out)
}

func entryLines(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Mode.String()[1:]+" "+e.Hash+" "+string(rune('0'+e.Stage))+"\t"+e.Path)
	}
	return out
}

func readAll(t *testing.T, es []Entry) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, e := range es {
		b, err := e.Read()
		if err != nil {
			t.Fatalf("Read %s: %v", e.Path, err)
		}
		m[e.Path] = string(b)
	}
	return m
}

func TestStagedFiles(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(realTemp(t), "repo"))
	testenv.WriteFile(t, filepath.Join(top, "vault/pages/a.md"), "staged\n")
	testenv.WriteFile(t, filepath.Join(top, "vault/pages/b.md"), "b\n")
	testenv.WriteFile(t, filepath.Join(top, "other.md"), "o\n")
	testenv.WriteFile(t, filepath.Join(top, "vault/new.md"), "intent\n")
	sb.Git(top, "add", "vault/pages", "other.md")
	sb.Git(top, "add", "-N", "vault/new.md")
	// The work tree moves on; the staged blob must not.
	testenv.WriteFile(t, filepath.Join(top, "vault/pages/a.md"), "work tree edit\n")

	r, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	es, err := r.StagedFiles("vault")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range lsStage(sb, top, nil) {
		if strings.Contains(l, "\tvault/") {
			want = append(want, l)
		}
	}
	if got := entryLines(es); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("StagedFiles:\n%s\nwant (git ls-files -s):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	content := readAll(t, es)
	if content["vault/pages/a.md"] != "staged\n" {
		t.Errorf("staged a.md = %q, want the staged blob", content["vault/pages/a.md"])
	}
	for _, e := range es {
		if e.IntentToAdd != (e.Path == "vault/new.md") {
			t.Errorf("%s: IntentToAdd = %v", e.Path, e.IntentToAdd)
		}
	}
	if es, _ := r.StagedFiles("vault/pages/b.md"); len(es) != 1 || es[0].Path != "vault/pages/b.md" {
		t.Errorf("StagedFiles of a file prefix = %+v", es)
	}
	if es, _ := r.StagedFiles("vau"); len(es) != 0 {
		t.Errorf("a partial component matched: %+v", es)
	}
}

// TestStagedFilesIndexFile honours GIT_INDEX_FILE, relative to the top like
// git (which is what pre-commit hooks receive).
func TestStagedFilesIndexFile(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(realTemp(t), "repo"))
	testenv.WriteFile(t, filepath.Join(top, "a.md"), "one\n")
	sb.Git(top, "add", "a.md")
	alt := []string{"GIT_INDEX_FILE=.git/alt-index"}
	testenv.WriteFile(t, filepath.Join(top, "a.md"), "two\n")
	testenv.WriteFile(t, filepath.Join(top, "b.md"), "b\n")
	if _, err := sb.Run(top, alt, nil, "add", "a.md", "b.md"); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{".git/alt-index", filepath.Join(top, ".git", "alt-index")} {
		t.Setenv("GIT_INDEX_FILE", env)
		r, err := Open(top)
		if err != nil {
			t.Fatal(err)
		}
		es, err := r.StagedFiles("")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := entryLines(es), lsStage(sb, top, alt); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("GIT_INDEX_FILE=%s: %v, want %v", env, got, want)
		}
		if c := readAll(t, es); c["a.md"] != "two\n" || c["b.md"] != "b\n" {
			t.Fatalf("GIT_INDEX_FILE=%s: contents %v", env, c)
		}
	}
}

func TestStagedFilesConflict(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(realTemp(t), "repo"))
	testenv.WriteFile(t, filepath.Join(top, "p.md"), "base\n")
	sb.Git(top, "add", "p.md")
	sb.Git(top, "commit", "-qm", "base")
	sb.Git(top, "checkout", "-qb", "other")
	testenv.WriteFile(t, filepath.Join(top, "p.md"), "theirs\n")
	sb.Git(top, "commit", "-qam", "theirs")
	sb.Git(top, "checkout", "-q", "main")
	testenv.WriteFile(t, filepath.Join(top, "p.md"), "ours\n")
	sb.Git(top, "commit", "-qam", "ours")
	if _, err := sb.Run(top, nil, nil, "merge", "-q", "other"); err == nil {
		t.Fatal("the merge was expected to conflict")
	}
	r, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	es, err := r.StagedFiles("")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entryLines(es), lsStage(sb, top, nil); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("conflicted index: %v, want %v", got, want)
	}
	byStage := map[int]string{}
	for _, e := range es {
		b, err := e.Read()
		if err != nil {
			t.Fatal(err)
		}
		byStage[e.Stage] = string(b)
	}
	if byStage[1] != "base\n" || byStage[2] != "ours\n" || byStage[3] != "theirs\n" || len(byStage) != 3 {
		t.Fatalf("stages = %v", byStage)
	}
	if idx, err := r.IndexPaths(); err != nil || !idx["p.md"] {
		t.Error("a conflicted path is tracked")
	}
}

func TestTreeFiles(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(realTemp(t), "repo"))
	testenv.WriteFile(t, filepath.Join(top, "vault/a.md"), "v1\n")
	testenv.WriteFile(t, filepath.Join(top, "vault/sub/b.md"), "b\n")
	testenv.WriteFile(t, filepath.Join(top, "run.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(top, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		// Windows files have no executable bit (Chmod only sets read-only),
		// so Git for Windows runs with core.fileMode=false and a file is
		// made executable in the index. Say so here too: under wine the
		// Linux git, seeing a 0644 file, would commit 100644.
		sb.Git(top, "config", "core.fileMode", "false")
	}
	sb.Git(top, "add", ".")
	if runtime.GOOS == "windows" {
		sb.Git(top, "update-index", "--chmod=+x", "run.sh")
	}
	sb.Git(top, "commit", "-qm", "one")
	testenv.WriteFile(t, filepath.Join(top, "vault/a.md"), "v2\n")
	sb.Git(top, "rm", "-q", "vault/sub/b.md")
	sb.Git(top, "commit", "-qam", "two")
	sb.Git(top, "tag", "-a", "-m", "tagged", "v2")
	// A commit on a branch that is never checked out, made with plumbing.
	tree := strings.TrimSpace(sb.Git(top, "write-tree"))
	sb.Git(top, "update-ref", "refs/heads/side", strings.TrimSpace(sb.Git(top, "commit-tree", tree, "-p", "HEAD", "-m", "side")))

	r, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ rev, prefix string }{
		{"HEAD~1", "vault"}, {"HEAD", "vault"}, {"HEAD", ""}, {"main", "vault/"}, {"v2", "vault"},
		{"side", ""}, {strings.TrimSpace(sb.Git(top, "rev-parse", "HEAD~1")), "vault/sub"},
		{strings.TrimSpace(sb.Git(top, "rev-parse", "--short", "HEAD~1")), "vault/sub/b.md"},
		{"HEAD~1", "missing"},
	} {
		es, err := r.TreeFiles(c.rev, c.prefix)
		if err != nil {
			t.Fatalf("TreeFiles(%q, %q): %v", c.rev, c.prefix, err)
		}
		args := []string{"ls-tree", "-r", "-z", c.rev}
		if c.prefix != "" {
			args = append(args, "--", c.prefix)
		}
		var want []string
		for _, l := range splitZ(sb.Git(top, args...)) {
			// "mode type hash\tpath" -> "mode hash 0\tpath"
			meta, path, _ := strings.Cut(l, "\t")
			f := strings.Fields(meta)
			want = append(want, f[0]+" "+f[2]+" 0\t"+path)
		}
		sort.Slice(want, func(i, j int) bool {
			return strings.SplitN(want[i], "\t", 2)[1] < strings.SplitN(want[j], "\t", 2)[1]
		})
		if got := entryLines(es); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("TreeFiles(%q, %q):\n%s\nwant:\n%s", c.rev, c.prefix, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	es, err := r.TreeFiles("HEAD~1", "vault")
	if err != nil {
		t.Fatal(err)
	}
	if c := readAll(t, es); c["vault/a.md"] != "v1\n" || c["vault/sub/b.md"] != "b\n" {
		t.Errorf("HEAD~1 contents = %q", c)
	}
	es, err = r.TreeFiles("HEAD", "run.sh")
	if err != nil || len(es) != 1 || es[0].Mode != filemode.Executable {
		t.Errorf("executable entry = %+v, %v", es, err)
	}
	if _, err := r.TreeFiles("no-such-branch", ""); err == nil {
		t.Error("TreeFiles resolved a missing revision")
	}
}

// TestTreeFilesLinkedWorktree reads HEAD per worktree and objects from the
// common directory.
func TestTreeFilesLinkedWorktree(t *testing.T) {
	sb := gitrepotest.New(t)
	root := realTemp(t)
	top := sb.Init(filepath.Join(root, "repo"))
	testenv.WriteFile(t, filepath.Join(top, "f"), "main\n")
	sb.Git(top, "add", "f")
	sb.Git(top, "commit", "-qm", "main")
	wt := filepath.Join(root, "wt")
	sb.Git(top, "worktree", "add", "-q", "-b", "feature", wt)
	relativeWorktreeGitFile(t, wt)
	testenv.WriteFile(t, filepath.Join(wt, "f"), "feature\n")
	sb.Git(wt, "commit", "-qam", "feature")
	r, err := Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	es, err := r.TreeFiles("HEAD", "")
	if err != nil {
		t.Fatal(err)
	}
	if c := readAll(t, es); c["f"] != "feature\n" {
		t.Fatalf("worktree HEAD content = %q", c)
	}
	es, err = r.TreeFiles("main", "")
	if err != nil {
		t.Fatal(err)
	}
	if c := readAll(t, es); c["f"] != "main\n" {
		t.Fatalf("main content = %q", c)
	}
}

// TestUntrackedSpecialCases compares Untracked with git ls-files --others
// for paths a generated scenario does not produce: symbolic links, files in
// a nested repository, missing paths, directories, and a tracked path that
// differs only in case under core.ignoreCase.
func TestUntrackedSpecialCases(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(realTemp(t), "repo"))
	testenv.WriteFile(t, filepath.Join(top, "readme.md"), "r\n")
	testenv.WriteFile(t, filepath.Join(top, "plain.md"), "p\n")
	sb.Git(top, "add", "readme.md")
	// Through another name: Wine takes a rename to a name that differs only
	// in case for a rename of the file onto itself and keeps the old name
	// (NTFS changes the case, as a case-sensitive file system does). The
	// check below makes sure the work tree holds what the test says.
	if err := os.Rename(filepath.Join(top, "readme.md"), filepath.Join(top, "readme.tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(top, "readme.tmp"), filepath.Join(top, "README.md")); err != nil {
		t.Fatal(err)
	}
	if des, err := os.ReadDir(top); err != nil || !slices.ContainsFunc(des, func(de os.DirEntry) bool { return de.Name() == "README.md" }) {
		t.Fatalf("scenario: no README.md in the work tree after the rename (%v)", err)
	}
	candidates := []string{"README.md", "plain.md", "nested/inner.md", "missing.md", "nested", "plain.md/x"}
	if symlinkOK(t, "plain.md", filepath.Join(top, "link.md")) {
		candidates = append(candidates, "link.md")
	} else {
		t.Log("no symbolic link candidate: cannot create symlinks here")
	}
	nested := sb.Init(filepath.Join(top, "nested"))
	testenv.WriteFile(t, filepath.Join(nested, "inner.md"), "i\n")
	for _, icase := range []string{"false", "true"} {
		sb.Git(top, "config", "core.ignoreCase", icase)
		r, err := Open(top)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Untracked(candidates)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, p := range splitZ(sb.Git(top, "ls-files", "--others", "--exclude-standard", "-z")) {
			if p != "nested/" { // git shows the nested repository itself
				want = append(want, p)
			}
		}
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("core.ignoreCase=%s: Untracked = %q, git = %q", icase, got, want)
		}
		t.Logf("core.ignoreCase=%s: untracked %q", icase, got)
	}
}

// TestConcurrentUse exercises the documented concurrency safety (meaningful
// under -race): exclude checks and blob reads from several goroutines must
// give the answers of a sequential run.
func TestConcurrentUse(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(realTemp(t), "repo"))
	var paths []string
	for i := 0; i < 40; i++ {
		p := "d" + strconv.Itoa(i%5) + "/f" + strconv.Itoa(i) + ".md"
		testenv.WriteFile(t, filepath.Join(top, p), p)
		paths = append(paths, p)
	}
	testenv.WriteFile(t, filepath.Join(top, ".gitignore"), "d1/\n*3.md\n")
	sb.Git(top, "add", "-f", ".")
	r, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	es, err := r.StagedFiles("")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = strings.HasPrefix(p, "d1/") || strings.HasSuffix(p, "3.md")
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for _, p := range paths {
				ign, err := r.Ignored(p, false)
				if err != nil || ign != want[p] {
					errs <- fmt.Errorf("Ignored(%q) = %v, %v", p, ign, err)
					return
				}
			}
			for _, e := range es {
				b, err := e.Read()
				if err != nil || (e.Path != ".gitignore" && string(b) != e.Path) {
					errs <- fmt.Errorf("Read(%q) = %q, %v", e.Path, b, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
