package fsx

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"testing"
)

// symlinkOrSkip creates link -> target, or skips the test where the system
// cannot create symlinks: Windows without Developer Mode or
// SeCreateSymbolicLinkPrivilege refuses, and Wine reports success without
// creating anything. Elsewhere a failure is fatal.
func symlinkOrSkip(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("cannot create symlinks here (%v): needs Developer Mode or SeCreateSymbolicLinkPrivilege", err)
		}
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		if runtime.GOOS == "windows" {
			t.Skipf("symlink creation reported success but %s is not a symlink (%v): Wine cannot create symlinks", link, err)
		}
		t.Fatalf("symlink %s not created: %v", link, err)
	}
}

// wantNewFileMode is the permission bits a newly created file gets: 0644
// minus the umask; on Windows (no umask, no group/other bits) Go reports a
// writable file as 0666.
func wantNewFileMode() fs.FileMode {
	if runtime.GOOS == "windows" {
		return 0o666
	}
	return 0o644 &^ processUmask()
}

// wantLockFileMode is the lock file's mode: 0600 minus the umask; 0666 on
// Windows (a writable file).
func wantLockFileMode() fs.FileMode {
	if runtime.GOOS == "windows" {
		return 0o666
	}
	return 0o600 &^ processUmask()
}

// errInjected is what failStep makes a step fail with.
var errInjected = errors.New("injected failure")

// failAt makes the named step fail for the rest of the test.
func failAt(t *testing.T, step string) {
	t.Helper()
	failStep = func(s string) error {
		if s == step {
			return &fs.PathError{Op: step, Path: "injected", Err: errInjected}
		}
		return nil
	}
	t.Cleanup(func() { failStep = nil })
}
