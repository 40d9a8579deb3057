//go:build windows

package fsx

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// junctionOrSkip makes link a junction (IO_REPARSE_TAG_MOUNT_POINT) to the
// directory target, as `mklink /J` does, with FSCTL_SET_REPARSE_POINT. Wine
// answers ERROR_NOT_SUPPORTED; the test is skipped there.
func junctionOrSkip(t *testing.T, link, target string) {
	t.Helper()
	if err := os.Mkdir(link, 0o755); err != nil {
		t.Fatal(err)
	}
	u, err := windows.UTF16PtrFromString(link)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(u, windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	utf16le := func(s string) []byte {
		var b []byte
		for _, c := range windows.StringToUTF16(s) { // includes the NUL
			b = binary.LittleEndian.AppendUint16(b, c)
		}
		return b
	}
	sub, print := utf16le(`\??\`+target), utf16le(target)
	// MOUNT_POINT_REPARSE_BUFFER: offsets and lengths in bytes, without NULs.
	var buf []byte
	buf = binary.LittleEndian.AppendUint32(buf, windows.IO_REPARSE_TAG_MOUNT_POINT)
	buf = binary.LittleEndian.AppendUint16(buf, uint16(8+len(sub)+len(print)))
	buf = binary.LittleEndian.AppendUint16(buf, 0)
	buf = binary.LittleEndian.AppendUint16(buf, 0)
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(sub)-2))
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(sub)))
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(print)-2))
	buf = append(append(buf, sub...), print...)
	var n uint32
	if err := windows.DeviceIoControl(h, windows.FSCTL_SET_REPARSE_POINT, &buf[0], uint32(len(buf)), nil, 0, &n, nil); err != nil {
		t.Skipf("cannot create a junction here (FSCTL_SET_REPARSE_POINT: %v); Wine does not support it", err)
	}
}

// TestJunctionRefusedAsManagedTarget: a junction is a link for every
// managed-target check: never replaced, never created over, never opened
// as a file, skipped by directory walks, and followed by ResolvePath, so
// that confinement sees where it leads.
func TestJunctionRefusedAsManagedTarget(t *testing.T) {
	dir := resolvedTempDir(t)
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	j := filepath.Join(ws, "pages")
	junctionOrSkip(t, j, outside)

	if !IsSymlink(j) || IsDirNoFollow(j) || IsRegular(j) {
		t.Fatalf("junction: IsSymlink=%v IsDirNoFollow=%v IsRegular=%v", IsSymlink(j), IsDirNoFollow(j), IsRegular(j))
	}
	var se *SymlinkError
	if err := WriteFileAtomic(j, []byte("x")); !errors.As(err, &se) {
		t.Fatalf("WriteFileAtomic onto a junction: %v", err)
	}
	if err := CreateFileExclusive(j, []byte("x")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateFileExclusive onto a junction: %v", err)
	}
	if _, err := OpenNoFollow(j); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("OpenNoFollow of a junction: %v", err)
	}
	if id, err := LstatIdent(j); err != nil || id.Mode != fs.ModeSymlink {
		t.Fatalf("LstatIdent: %+v %v", id, err)
	}
	ents, err := os.ReadDir(ws)
	if err != nil || len(ents) != 1 || !IsLinkEntry(ws, ents[0]) {
		t.Fatalf("IsLinkEntry: %v %v", ents, err)
	}
	got, err := ResolvePath(filepath.Join(j, "new.md"))
	if err != nil || got != filepath.Join(outside, "new.md") {
		t.Fatalf("ResolvePath through a junction: %q %v", got, err)
	}
	if Within(ws, got) {
		t.Fatal("a path through a junction to the outside counted as within")
	}
	if real, err := RealPath(j); err != nil || real != outside {
		t.Fatalf("RealPath: %q %v", real, err)
	}
}

// TestWindowsHandlesShareDelete: files this package holds open never block
// another process's removal (POSIX semantics), which the lock's release and
// stale removal rely on.
func TestWindowsHandlesShareDelete(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "lock")
	writeFile(t, p, []byte("token\n"), 0o644)
	// Replacing a file another handle holds open is refused by NTFS (and
	// Wine) even when that handle shares delete access: MoveFileEx fails
	// with ERROR_ACCESS_DENIED until it is closed. The write then fails
	// cleanly: the file is unchanged, no temporary file remains.
	f, err := OpenNoFollow(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("replaced\n")); err != nil {
		if got := string(readFile(t, p)); got != "token\n" {
			t.Fatalf("failed replace changed the file: %q", got)
		}
		t.Logf("replace while open: %v", err)
	}
	assertNoTemps(t, dir)
	_ = f.Close()
	if err := WriteFileAtomic(p, []byte("replaced\n")); err != nil {
		t.Fatal(err)
	}
	g, err := OpenNoFollow(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatalf("remove while a guarded reader holds the file: %v", err)
	}
	_ = g.Close()

	// The lock's touch works while a plain os.Open reader (sharing read
	// and write, not delete, like Python's open()) holds the file.
	writeFile(t, p, []byte("token\n"), 0o644)
	r, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := touchLockFile(p, old); err != nil {
		t.Fatalf("touch while read: %v", err)
	}
	if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(old) {
		t.Fatalf("mtime %v, want %v (%v)", fi.ModTime(), old, err)
	}
	if b, err := readLockFile(p); err != nil || string(b) != "token\n" {
		t.Fatalf("readLockFile while read: %q %v", b, err)
	}
}

// TestWindowsErrnoTranslation: Windows errors read as Node's do there.
func TestWindowsErrnoTranslation(t *testing.T) {
	_, err := OpenNoFollow(filepath.Join(t.TempDir(), "absent"))
	if e, ok := Errno(err); !ok || e != syscall.ENOENT {
		t.Fatalf("Errno(%v) = %v, %v, want ENOENT", err, e, ok)
	}
	if e, ok := Errno(&fs.PathError{Op: "open", Path: "x", Err: syscall.ELOOP}); !ok || e != syscall.ELOOP {
		t.Fatalf("ELOOP passes through: %v %v", e, ok)
	}
	if e, ok := Errno(windows.ERROR_ALREADY_EXISTS); !ok || e != syscall.EEXIST {
		t.Fatalf("ERROR_ALREADY_EXISTS: %v %v", e, ok)
	}
}

// TestWindowsSyncDirIsANoOp documents the one guarantee Windows cannot
// give: a directory cannot be fsynced; SyncDir accepts any path.
func TestWindowsSyncDirIsANoOp(t *testing.T) {
	if err := SyncDir(filepath.Join(t.TempDir(), "absent")); err != nil {
		t.Fatal(err)
	}
}
