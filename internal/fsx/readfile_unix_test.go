//go:build unix

package fsx

import (
	"errors"
	"github.com/git-echoes/git-echoes/internal/testenv"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesFIFO (issue 11 item 4): a FIFO with no writer makes a
// plain open block forever; ReadFile, ReadFileBuf and Dir.ReadFileBuf refuse
// it at once with ErrNotRegular, as they refuse a directory, and still read
// regular files (through a symlink too).
func TestReadFileRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(dir, "r.md")
	writeFile(t, reg, []byte("text\n"), 0o644)
	if err := os.Symlink("f.md", filepath.Join(dir, "tofifo")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, p := range []string{fifo, sub, filepath.Join(dir, "tofifo")} {
		for what, read := range map[string]func() error{
			"ReadFile":        func() error { _, err := ReadFile(p); return err },
			"ReadFileBuf":     func() error { _, err := ReadFileBuf(p, nil); return err },
			"Dir.ReadFileBuf": func() error { _, err := d.ReadFileBuf(filepath.Base(p), nil); return err },
		} {
			err := testenv.ReturnsWithin(t, what+" "+p, read)
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s(%s): err = %v, want ErrNotRegular", what, p, err)
			}
		}
	}
	if b, err := ReadFile(reg); err != nil || string(b) != "text\n" {
		t.Errorf("ReadFile(regular) = %q, %v", b, err)
	}
}

// TestLockFIFOIsNotBusy: a FIFO at the lock path, fresh or old, is refused
// at once (it could block the stale check's read, and no writer could ever
// create the lock there).
func TestLockFIFOIsNotBusy(t *testing.T) {
	forever := LockOptions{Wait: time.Hour, Poll: 5 * time.Millisecond, Stale: 60 * time.Second, Refresh: -1}
	for _, age := range []time.Duration{0, time.Hour} {
		lp := filepath.Join(t.TempDir(), "lock")
		if err := syscall.Mkfifo(lp, 0o600); err != nil {
			t.Fatal(err)
		}
		setAge(t, lp, age)
		err := testenv.ReturnsWithin(t, "AcquireLock on a FIFO", func() error { _, err := AcquireLock(lp, forever); return err })
		var ne *LockNotFileError
		if !errors.As(err, &ne) || ne.Mode&os.ModeNamedPipe == 0 {
			t.Fatalf("age %s: err = %v, want LockNotFileError for a FIFO", age, err)
		}
		st, ok := InspectLock(lp, 60*time.Second, time.Now())
		if !ok || st.Mode&os.ModeNamedPipe == 0 || st.Token != "" {
			t.Errorf("InspectLock = %+v, %v", st, ok)
		}
	}
}
