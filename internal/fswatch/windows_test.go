package fswatch_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// TestWindowsRevalidates: ReadDirectoryChangesW has no ordered barrier
// across directories (see the package documentation), so a Windows
// watcher runs, counts events, and never claims freshness.
func TestWindowsRevalidates(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("Windows only")
	}
	root := tempDir(t)
	w := newWatcher(t, root)
	if _, ok := w.Sync(); ok {
		t.Fatal("Sync proved freshness on Windows")
	}
	s := w.State()
	if s.Mode != fswatch.Revalidate || s.Watches == 0 {
		t.Fatalf("state %s", s)
	}
	write(t, filepath.Join(root, "p.md"), "x\n")
	if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Sync(); ok {
		t.Fatal("Sync proved freshness on Windows")
	}
}
