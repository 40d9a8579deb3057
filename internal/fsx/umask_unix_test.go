//go:build unix

package fsx

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestProcessUmaskMatchesSyscall(t *testing.T) {
	// Safe here: no other test in this package creates files concurrently
	// (no t.Parallel), and the value is restored immediately.
	old := syscall.Umask(0o022)
	syscall.Umask(old)
	if got := processUmask(); got != fs.FileMode(old) {
		t.Fatalf("processUmask() = %o, umask(2) says %o", got, old)
	}
}

func TestWriteFileAtomicPreservesMode(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []fs.FileMode{0o755, 0o600, 0o640, 0o700, 0o444} {
		p := filepath.Join(dir, "f"+mode.String())
		writeFile(t, p, []byte("x"), mode)
		if err := WriteFileAtomic(p, []byte("y")); err != nil {
			t.Fatal(err)
		}
		if got := modeOf(t, p); got != mode {
			t.Errorf("mode after replace = %v, want %v", got, mode)
		}
		if got := string(readFile(t, p)); got != "y" {
			t.Errorf("content after replace = %q", got)
		}
	}
	assertNoTemps(t, dir)
}

// TestNoFollowFIFO: a FIFO opens without blocking (O_NONBLOCK) and is
// reported as a named pipe, so that the guarded reader refuses it.
func TestNoFollowFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenNoFollow(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if id.IsRegular() || id.Mode&fs.ModeNamedPipe == 0 {
		t.Fatalf("FIFO reported as %v", id.Mode)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	g, err := d.OpenNoFollow("fifo.md")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if id2, err := g.Stat(); err != nil || !id2.SameFile(id) || id2.Mode != id.Mode {
		t.Fatalf("Dir.OpenNoFollow: %v %v", id2, err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
}
