//go:build unix

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCreateOnlyWithoutHardLinks plays a file system without hard links
// (link(2) answers EPERM, as on FAT and exFAT): the Linux and macOS builds
// publish with the atomic no-replace rename; FreeBSD and the portable
// build have none, so Publish refuses (never writing the final name) and
// CreateFileExclusive creates the name itself with O_EXCL. Either way an
// existing entry is never replaced and no temporary file remains.
func TestCreateOnlyWithoutHardLinks(t *testing.T) {
	linkFile = func(old, new string) error { return &os.LinkError{Op: "link", Old: old, New: new, Err: syscall.EPERM} }
	t.Cleanup(func() { linkFile = os.Link })
	dir := t.TempDir()
	probe := renameNoReplace(filepath.Join(dir, "absent"), filepath.Join(dir, "other"))
	atomicRename := !errors.Is(probe, syscall.ENOTSUP)

	p := filepath.Join(dir, "entry.md")
	if err := CreateFileExclusive(p, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, p)); got != "first" {
		t.Fatalf("content %q", got)
	}
	if got, want := modeOf(t, p), wantNewFileMode(); got != want {
		t.Fatalf("mode %v, want %v", got, want)
	}
	if err := CreateFileExclusive(p, []byte("second")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second create: %v", err)
	}
	q := filepath.Join(dir, "m.md")
	err := Publish(q, []byte("memory"), PublishOptions{Temp: filepath.Join(dir, ".m.tmp")})
	if atomicRename {
		if err != nil || string(readFile(t, q)) != "memory" {
			t.Fatalf("Publish with the no-replace rename: %v", err)
		}
		var ee *ExistsError
		if err := Publish(p, []byte("x"), PublishOptions{Temp: filepath.Join(dir, ".p.tmp")}); !errors.As(err, &ee) {
			t.Fatalf("Publish onto an existing file: %v", err)
		}
	} else {
		var le *os.LinkError
		if !errors.As(err, &le) || le.Op != "rename" || !errors.Is(err, syscall.ENOTSUP) {
			t.Fatalf("Publish without link or no-replace rename: %v, want the rename's ENOTSUP", err)
		}
		if _, err := os.Lstat(q); !errors.Is(err, fs.ErrNotExist) {
			t.Fatal("Publish wrote the final name directly")
		}
	}
	if got := string(readFile(t, p)); got != "first" {
		t.Fatalf("existing file replaced: %q", got)
	}
	assertNoTemps(t, dir)
	t.Logf("atomic no-replace rename available: %v", atomicRename)
}
