package memory

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// testRoots resolves roots inside a fresh temporary project with its own
// home, isolated from the machine's environment.
func testRoots(t testing.TB) *Roots {
	t.Helper()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	home := filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(proj, ".git"), home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r, err := ResolveRoots(RootOptions{Cwd: proj, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// listFiles returns every non-directory path under root (none if missing).
func listFiles(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// symlinkOrSkip creates link -> target, or skips the test where the system
// cannot create symlinks: Windows without Developer Mode or
// SeCreateSymbolicLinkPrivilege refuses, and Wine reports success without
// creating anything. Elsewhere a failure is fatal.
func symlinkOrSkip(t testing.TB, target, link string) {
	t.Helper()
	if !trySymlink(t, target, link) {
		t.Skipf("cannot create symlinks here (%s): Windows needs Developer Mode, Wine creates none", link)
	}
}

// trySymlink creates link -> target and reports whether a symlink now
// exists there; only on Windows may it not.
func trySymlink(t testing.TB, target, link string) bool {
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
	return false
}
