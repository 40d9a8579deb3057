package testenv

import (
	"io/fs"
	"os"
	"runtime"
	"testing"
)

// SymlinkOrSkip creates link -> target, or skips the test where the system
// cannot create symlinks: Windows without Developer Mode or
// SeCreateSymbolicLinkPrivilege refuses, and Wine reports success without
// creating anything. Elsewhere a failure is fatal.
func SymlinkOrSkip(t testing.TB, target, link string) {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		if fi, lerr := os.Lstat(link); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return
		}
	}
	if runtime.GOOS != "windows" {
		t.Fatalf("symlink %s: %v", link, err)
	}
	t.Skipf("cannot create symlinks here (%s, %v): Windows needs Developer Mode, Wine creates none", link, err)
}
