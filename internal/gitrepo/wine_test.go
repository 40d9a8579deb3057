package gitrepo

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// Helpers for the tests' run as a Windows binary under wine64
// (scripts/wine/go-test.sh), where `git` is tools/winegit: each call is run
// by the real Linux git, with the Windows paths in its arguments (and in
// absolute-path GIT_* and HOME values) translated to Unix paths by Wine.
// Git therefore prints, and writes into the files it creates, Unix paths a
// Git for Windows would spell C:/...; these helpers translate between the
// two so that the tests compare the same things they compare on Linux.

// underWineGit reports whether git is the wine bridge
// (scripts/wine/run-test.sh sets its spool directory for the test binary).
func underWineGit() bool {
	return runtime.GOOS == "windows" && os.Getenv(testenv.WinegitSpoolEnv) != ""
}

// hostPath returns a path git printed as this process spells it: on
// Linux the path itself; on Windows a Unix absolute path (only the wine
// bridge prints those) becomes the Windows path Wine maps it to, and an
// absolute C:/... (Git for Windows) gets this OS's separators. Relative
// paths are returned as they are.
func hostPath(p string) string {
	if runtime.GOOS != "windows" || p == "" {
		return p
	}
	if strings.HasPrefix(p, "/") {
		if w, ok := dosPath(p); ok {
			return filepath.Clean(w)
		}
		return p
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return p
}

// gitSidePath returns the path the git on the other side of the wine bridge
// knows p by, an existing Windows path: its Unix path. Elsewhere git and
// this process share the spelling and p is returned.
func gitSidePath(t *testing.T, p string) string {
	t.Helper()
	if !underWineGit() {
		return p
	}
	u, ok := unixPath(p)
	if !ok {
		t.Fatalf("wine gives %s no Unix path", p)
	}
	return u
}

// configPath spells p as a value in a Git config file, as `git config`
// writes it: backslashes (Windows separators) escaped. A raw C:\... is a
// bad config line ("\u" is no escape), for Git for Windows too.
func configPath(p string) string {
	return strings.ReplaceAll(p, `\`, `\\`)
}

// appendFile appends s to the existing file p.
func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// relativeWorktreeGitFile rewrites, under the wine bridge, the .git file
// of the linked worktree wt with a gitdir relative to the file. The Linux
// git wrote the Unix path of the worktree's git directory there, where a
// Git for Windows writes C:/...; a Unix absolute path is no absolute path
// on Windows, and a relative one is read alike by both sides (Git accepts
// it in a .git file; submodules use it). Elsewhere it does nothing.
func relativeWorktreeGitFile(t *testing.T, wt string) {
	t.Helper()
	if !underWineGit() {
		return
	}
	dotgit := filepath.Join(wt, ".git")
	data, err := os.ReadFile(dotgit)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gd, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || !strings.HasPrefix(gd, "/") {
		t.Fatalf("%s: %q is not the gitdir line with a Unix path the wine bridge writes", dotgit, line)
	}
	rel, err := filepath.Rel(wt, hostPath(gd))
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, dotgit, "gitdir: "+filepath.ToSlash(rel)+"\n")
}

// symlinkOK creates link -> target and reports whether a symbolic link now
// exists. Where the system cannot make one (Windows without Developer
// Mode; Wine, which reports success and creates nothing) it returns false,
// so that only the sub-cases needing the link are skipped; elsewhere a
// failure is fatal.
func symlinkOK(t *testing.T, target, link string) bool {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		if fi, lerr := os.Lstat(link); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	if runtime.GOOS != "windows" {
		t.Fatalf("symlink %s: %v", link, err)
	}
	t.Logf("cannot create symlinks here (%s, %v): Windows needs Developer Mode, Wine creates none", link, err)
	return false
}
