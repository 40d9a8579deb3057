package fsx

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestIsTempName(t *testing.T) {
	made, err := TempName("a.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{made, ".a.md.abcd_123.tmp", ".index.md.zzzzzzzz.tmp", "..x.00000000.tmp",
		".ecc-memory-4242-0123abcd-4567-89ab-cdef-0123456789ab.tmp"} {
		if !IsTempName(name) {
			t.Errorf("IsTempName(%q) = false", name)
		}
	}
	for _, name := range []string{"a.md", ".notes.tmp", "a.md.abcd1234.tmp", ".a.md.ABCD1234.tmp",
		".a.md.abcd123.tmp", ".a.md.abcd12345.tmp", ".a.md-abcd1234.tmp", "..abcd1234.tmp", ".a.md.abcd-234.tmp",
		".ecc-memory-x-0123abcd-4567-89ab-cdef-0123456789ab.tmp", ".ecc-memory-1-0123abcd-4567-89ab-cdef-0123456789a.tmp",
		".ecc-memory-1-0123ABCD-4567-89ab-cdef-0123456789ab.tmp", ".ecc-memory--0123abcd-4567-89ab-cdef-0123456789ab.tmp"} {
		if IsTempName(name) {
			t.Errorf("IsTempName(%q) = true", name)
		}
	}
}

// TestRemoveStaleTemps: only our exact temporary names, only regular files,
// only older than the age, go.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	write := func(name string, mtime time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write(".a.md.abcd1234.tmp", old)                                                  // stale: removed
	write(".ecc-memory-7-0123abcd-4567-89ab-cdef-0123456789ab.tmp", old)              // stale: removed
	write(".b.md.abcd1234.tmp", time.Now())                                           // a live writer's: kept
	write(".notes.tmp", old)                                                          // not ours: kept
	write("a.md", old)                                                                // a page: kept
	if err := os.Mkdir(filepath.Join(dir, ".c.md.abcd1234.tmp"), 0o755); err != nil { // not a file: kept
		t.Fatal(err)
	}
	removed, err := RemoveStaleTemps(dir, StaleTempAge, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{".a.md.abcd1234.tmp", ".ecc-memory-7-0123abcd-4567-89ab-cdef-0123456789ab.tmp"}
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if wantLeft := []string{".b.md.abcd1234.tmp", ".c.md.abcd1234.tmp", ".notes.tmp", "a.md"}; !slices.Equal(left, wantLeft) {
		t.Errorf("left %q, want %q", left, wantLeft)
	}
	if removed, err := RemoveStaleTemps(filepath.Join(dir, "missing"), StaleTempAge, time.Now()); err != nil || removed != nil {
		t.Errorf("missing dir: %q, %v", removed, err)
	}
}
