package fsx

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Dir.FileID and LstatFileID agree, see a changed mtime, size and inode,
// and report a symlink itself.
func TestFileID(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.md")
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	a, err := LstatFileID(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.FileID("f.md")
	if err != nil || a != b {
		t.Fatalf("LstatFileID %+v, Dir.FileID %+v, %v", a, b, err)
	}
	if a.Size != 3 || a.Mode != 0 || a.MtimeNs == 0 {
		t.Errorf("%+v", a)
	}
	ts := time.Now().Add(-time.Hour)
	os.Chtimes(p, ts, ts)
	if c, _ := d.FileID("f.md"); c.MtimeNs != ts.UnixNano() || c.Ino != a.Ino {
		t.Errorf("mtime %d, want %d; inode %d, want %d", c.MtimeNs, ts.UnixNano(), c.Ino, a.Ino)
	}
	// Replaced by rename: another inode (where the OS reports one).
	q := filepath.Join(dir, "g.md")
	os.WriteFile(q, []byte("one"), 0o644)
	os.Rename(q, p)
	if c, _ := d.FileID("f.md"); a.Ino != 0 && c.Ino == a.Ino {
		t.Errorf("renamed-over file kept inode %d", c.Ino)
	}
	if _, err := d.FileID("missing.md"); !os.IsNotExist(err) {
		t.Errorf("missing: %v", err)
	}
}

func TestFileIDSymlink(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.md"), []byte("one"), 0o644)
	symlinkOrSkip(t, "f.md", filepath.Join(dir, "l.md"))
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, get := range []func() (FileID, error){
		func() (FileID, error) { return d.FileID("l.md") },
		func() (FileID, error) { return LstatFileID(filepath.Join(dir, "l.md")) },
	} {
		if c, err := get(); err != nil || c.Mode&os.ModeSymlink == 0 {
			t.Errorf("symlink: %+v %v", c, err)
		}
	}
}
