package fsx

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A stamp reports the file itself: its type, size and modification time as
// os.Lstat sees them, the same through an open directory and by path.
func TestStampReportsTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LstatStamp(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsRegular() || s.Size != 5 || s.Mtime != fi.ModTime().UnixNano() {
		t.Errorf("stamp %+v, want a regular file of 5 bytes modified at %d", s, fi.ModTime().UnixNano())
	}
	if s.Ino == 0 {
		t.Errorf("stamp %+v has no file identity", s)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ds, err := d.Stamp("a.md")
	if err != nil || ds != s {
		t.Errorf("Dir.Stamp = %+v, %v; want %+v", ds, err, s)
	}
	if _, err := d.Stamp("missing.md"); !os.IsNotExist(err) {
		t.Errorf("Dir.Stamp of a missing file: %v, want not-exist", err)
	}
	if sd, err := LstatStamp(dir); err != nil || sd.Mode != fs.ModeDir {
		t.Errorf("stamp of a directory: %+v, %v", sd, err)
	}
}

// The edits a stat cache must notice even when size and modification time
// are put back as they were: a rewrite in place (the change time moves,
// where the system reports one) and a replacement by rename (another file).
func TestStampSeesSameSizeSameMtimeEdits(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	write := func(content string) Stamp {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		s, err := LstatStamp(p)
		if err != nil {
			t.Fatal(err)
		}
		if s.Mtime != old.UnixNano() {
			t.Fatalf("mtime %d after Chtimes, want %d", s.Mtime, old.UnixNano())
		}
		return s
	}
	a := write("aaaa")
	time.Sleep(20 * time.Millisecond) // past any change-time granule
	b := write("bbbb")
	t.Logf("change time reported: %v", a.Ctime != 0)
	if a.Ctime != 0 && a == b {
		t.Errorf("rewrite in place with size and mtime restored: stamp unchanged %+v", a)
	}
	q := filepath.Join(dir, "b.md")
	if err := os.WriteFile(q, []byte("cccc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(q, old, old); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" { // Windows cannot rename over an open file
		keep, err := os.Open(p) // keeps the old file (and its inode number) alive
		if err != nil {
			t.Fatal(err)
		}
		defer keep.Close()
	}
	if err := os.Rename(q, p); err != nil {
		t.Fatal(err)
	}
	c, err := LstatStamp(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Size != b.Size || c.Mtime != b.Mtime {
		t.Fatalf("replacement differs in size or mtime: %+v vs %+v", c, b)
	}
	if c.Ino == b.Ino && c.Dev == b.Dev {
		t.Errorf("replacement by rename has the same identity: %+v vs %+v", c, b)
	}
}

func TestStampSymlinkNotFollowed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := filepath.Join(dir, "l.md")
	symlinkOrSkip(t, p, l)
	s, err := LstatStamp(l)
	if err != nil || s.Mode != fs.ModeSymlink || s.IsRegular() {
		t.Errorf("stamp of a symlink: %+v, %v; want ModeSymlink", s, err)
	}
}

// Racy: a time at or after the cache's write time, minus the granule, is
// not safely older; one granule earlier is.
func TestStampRacy(t *testing.T) {
	const g = int64(time.Second)
	s := Stamp{Mtime: 10 * g, Ctime: 10 * g}
	for _, c := range []struct {
		written int64
		racy    bool
	}{{10 * g, true}, {11 * g, true}, {11*g + 1, false}, {20 * g, false}} {
		if got := s.Racy(c.written, g); got != c.racy {
			t.Errorf("Racy(written=%d) = %v, want %v", c.written, got, c.racy)
		}
	}
	if !(Stamp{Mtime: 1, Ctime: 20 * g}).Racy(15*g, g) {
		t.Error("a recent change time is racy even with an old mtime")
	}
}
