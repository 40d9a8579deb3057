package gitrepo

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// realTemp returns a symlink-resolved temporary directory (on some systems
// the temp dir itself lives behind a symlink).
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// gitTop asks git for the top level from dir ("" when git finds none).
func gitTop(sb *gitrepotest.Sandbox, dir string) string {
	out, err := sb.Run(dir, nil, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	return hostPath(strings.TrimSpace(out))
}

func TestDiscover(t *testing.T) {
	sb := gitrepotest.New(t)
	root := realTemp(t)

	plain := sb.Init(filepath.Join(root, "plain"))
	testenv.WriteFile(t, filepath.Join(plain, "a/b/c/file"), "x")
	testenv.WriteFile(t, filepath.Join(plain, "README"), "x")
	sb.Git(plain, "add", "README")
	sb.Git(plain, "commit", "-qm", "init")

	wt := filepath.Join(root, "linked")
	sb.Git(plain, "worktree", "add", "-q", wt)
	relativeWorktreeGitFile(t, wt)
	if err := os.MkdirAll(filepath.Join(wt, "deep", "er"), 0o755); err != nil {
		t.Fatal(err)
	}

	subSrc := sb.Init(filepath.Join(root, "subsrc"))
	testenv.WriteFile(t, filepath.Join(subSrc, "s.txt"), "x")
	sb.Git(subSrc, "add", "s.txt")
	sb.Git(subSrc, "commit", "-qm", "sub")
	sb.Git(plain, "-c", "protocol.file.allow=always", "submodule", "add", "-q", subSrc, "mods/sub")

	bare := filepath.Join(root, "bare.git")
	sb.Git(root, "init", "-q", "--bare", bare)

	none := filepath.Join(root, "none", "x")
	if err := os.MkdirAll(none, 0o755); err != nil {
		t.Fatal(err)
	}
	// linkResolved stays "" where no symlink can be made: that case skips.
	linkResolved := ""
	if symlinkOK(t, filepath.Join(plain, "a", "b"), filepath.Join(root, "link")) {
		var err error
		if linkResolved, err = filepath.EvalSymlinks(filepath.Join(root, "link", "c")); err != nil {
			t.Fatal(err)
		}
	}

	cases := []struct {
		name, dir, top string
		// gitDiffers marks the one place where git's answer differs on
		// purpose: from inside a git directory whose config sets
		// core.worktree (a submodule's .git/modules/<name>), git reports that
		// work tree, but the directory is not inside it, and echoes-conformance §3 treats
		// "inside .git" as no work tree.
		gitDiffers bool
	}{
		{"plain top", plain, plain, false},
		{"plain subdirectory", filepath.Join(plain, "a", "b", "c"), plain, false},
		{"linked worktree", filepath.Join(wt, "deep", "er"), wt, false},
		{"submodule", filepath.Join(plain, "mods", "sub"), filepath.Join(plain, "mods", "sub"), false},
		{"bare repository", bare, "", false},
		{"inside bare refs", filepath.Join(bare, "refs", "heads"), "", false},
		{"inside .git", filepath.Join(plain, ".git"), "", false},
		{"inside .git/objects", filepath.Join(plain, ".git", "objects"), "", false},
		{"inside a submodule's git dir", filepath.Join(plain, ".git", "modules", "mods", "sub"), "", true},
		{"no repository", none, "", false},
		{"through a symlinked directory", linkResolved, plain, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.dir == "" {
				t.Skip("cannot create symlinks here: Windows needs Developer Mode, Wine creates none")
			}
			top, ok, err := Discover(c.dir)
			if err != nil {
				t.Fatalf("Discover(%s): %v", c.dir, err)
			}
			if ok != (c.top != "") || top != c.top {
				t.Fatalf("Discover(%s) = %q, %v; want %q", c.dir, top, ok, c.top)
			}
			if g := gitTop(sb, c.dir); g != c.top && !c.gitDiffers {
				t.Fatalf("git rev-parse --show-toplevel in %s = %q, test expects %q", c.dir, g, c.top)
			}
			if !ok {
				return
			}
			r, err := Open(top)
			if err != nil {
				t.Fatalf("Open(%s): %v", top, err)
			}
			if got := hostPath(strings.TrimSpace(sb.Git(c.dir, "rev-parse", "--absolute-git-dir"))); got != r.GitDir() {
				t.Errorf("GitDir = %s, git says %s", r.GitDir(), got)
			}
			common := hostPath(strings.TrimSpace(sb.Git(top, "rev-parse", "--git-common-dir")))
			if !filepath.IsAbs(common) {
				common = filepath.Join(top, common)
			}
			if filepath.Clean(common) != r.CommonDir() {
				t.Errorf("CommonDir = %s, git says %s", r.CommonDir(), common)
			}
		})
	}

	t.Run("relative path refused", func(t *testing.T) {
		if _, _, err := Discover("relative/dir"); err == nil {
			t.Fatal("Discover accepted a relative path")
		}
	})
	t.Run("invalid .git file", func(t *testing.T) {
		d := filepath.Join(root, "badgitfile")
		testenv.WriteFile(t, filepath.Join(d, ".git"), "not a gitdir line\n")
		_, _, err := Discover(d)
		if !errors.Is(err, ErrInvalidGitFile) {
			t.Fatalf("Discover on a bad .git file: err = %v, want ErrInvalidGitFile", err)
		}
	})
	t.Run("ceiling directory", func(t *testing.T) {
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Join(plain, "a"))
		dir := filepath.Join(plain, "a", "b", "c")
		if top, ok, err := Discover(dir); err != nil || ok {
			t.Fatalf("Discover below a ceiling = %q, %v, %v; want not found", top, ok, err)
		}
		gitCeiling := filepath.Join(plain, "a")
		if underWineGit() {
			// The bridge would hand the Linux git the Unix path of the
			// ceiling through Wine's dosdevices/c: link, whose colon
			// splits git's colon-separated list. It gets the Unix path it
			// reports itself for the top, which the bridge leaves alone.
			gitCeiling = path.Join(strings.TrimSpace(sb.Git(plain, "rev-parse", "--show-toplevel")), "a")
		}
		out, err := sb.Run(dir, []string{"GIT_CEILING_DIRECTORIES=" + gitCeiling}, nil, "rev-parse", "--show-toplevel")
		if err == nil {
			t.Fatalf("git found a repository above the ceiling: %s", out)
		}
	})
}
