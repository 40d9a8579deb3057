package fswatch_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// Each test makes a change through the file system (never a simulated
// event) and checks what the next barrier reports: the generation must
// move past the one a Sync returned before the change, and with nothing
// changed it must stay put.

func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newWatcher(t *testing.T, roots ...string) *fswatch.Watcher {
	t.Helper()
	w := fswatch.New(fswatch.Options{})
	t.Cleanup(func() { _ = w.Close() })
	w.Watch(roots...)
	return w
}

// synced is a barrier that must succeed (the Linux and kqueue path).
func synced(t *testing.T, w *fswatch.Watcher) uint64 {
	t.Helper()
	g, ok := w.Sync()
	if !ok {
		t.Fatalf("Sync: no proof: %s", w.State())
	}
	return g
}

func skipWithoutBarrier(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no ordered barrier; TestWindowsRevalidates covers it")
	}
}

func unchanged(t *testing.T, w *fswatch.Watcher, g uint64) {
	t.Helper()
	if g2 := synced(t, w); g2 != g {
		t.Fatalf("generation moved from %d to %d with nothing changed", g, g2)
	}
}

func changed(t *testing.T, w *fswatch.Watcher, g uint64, what string) uint64 {
	t.Helper()
	g2 := synced(t, w)
	if g2 == g {
		t.Fatalf("%s: generation still %d after the change", what, g)
	}
	return g2
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestChangesMoveTheGeneration(t *testing.T) {
	skipWithoutBarrier(t)
	root := filepath.Join(tempDir(t), "vault")
	if err := os.MkdirAll(filepath.Join(root, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(root, "pages", "a.md")
	write(t, page, "one\n")
	w := newWatcher(t, root)
	g := synced(t, w)
	unchanged(t, w, g)

	write(t, page, "two\n") // in place: truncate and write
	g = changed(t, w, g, "in-place edit")
	unchanged(t, w, g)

	f, err := os.OpenFile(page, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("appended\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g = changed(t, w, g, "append through an open file")

	tmp := filepath.Join(root, "pages", ".a.md.tmp")
	write(t, tmp, "three\n")
	g = changed(t, w, g, "temp file created")
	if err := os.Rename(tmp, page); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "atomic replace (rename over)")

	if err := os.Chmod(page, 0o600); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "chmod")

	if err := os.Rename(page, filepath.Join(root, "pages", "b.md")); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "rename")

	if err := os.Remove(filepath.Join(root, "pages", "b.md")); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "remove")
	unchanged(t, w, g)
}

func TestNewDirectoriesAreWatchedBeforeListing(t *testing.T) {
	skipWithoutBarrier(t)
	root := tempDir(t)
	w := newWatcher(t, root)
	g := synced(t, w)
	deep := filepath.Join(root, "daily", "2026-12-02", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "mkdir -p")
	write(t, filepath.Join(deep, "e.md"), "entry\n")
	g = changed(t, w, g, "file in a new nested directory")
	// A tree moved into place whole.
	other := filepath.Join(tempDir(t), "moved")
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "tree renamed into place")
	write(t, filepath.Join(root, "moved", "sub", "f.md"), "x\n")
	changed(t, w, g, "file in a subdirectory of a moved-in tree")
}

func TestRootDeletedAndRecreated(t *testing.T) {
	skipWithoutBarrier(t)
	parent := tempDir(t)
	root := filepath.Join(parent, "a", "vault")
	if err := os.MkdirAll(filepath.Join(root, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t, root)
	g := synced(t, w)
	if err := os.RemoveAll(filepath.Join(parent, "a")); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "root's parent removed")
	unchanged(t, w, g)
	if err := os.MkdirAll(filepath.Join(root, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "root re-created")
	write(t, filepath.Join(root, "pages", "p.md"), "x\n")
	g = changed(t, w, g, "file in the re-created root")

	// Renamed away: the old inode's watch must not stand in for the path.
	if err := os.Rename(filepath.Join(parent, "a"), filepath.Join(parent, "old")); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "ancestor renamed away")
	if err := os.MkdirAll(filepath.Join(root, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "root created anew")
	write(t, filepath.Join(root, "pages", "q.md"), "x\n")
	g = changed(t, w, g, "file in the new root")
	for _, p := range w.Watched() {
		if strings.HasPrefix(p, filepath.Join(parent, "old")) {
			t.Errorf("%s is still watched after it was renamed away", p)
		}
	}
	// Writes in the renamed-away tree no longer concern anyone.
	write(t, filepath.Join(parent, "old", "vault", "pages", "z.md"), "x\n")
	unchanged(t, w, g)
}

func TestUnrelatedEntriesOfAncestorsAreIgnored(t *testing.T) {
	skipWithoutBarrier(t)
	parent := tempDir(t)
	root := filepath.Join(parent, "vault")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t, root)
	g := synced(t, w)
	write(t, filepath.Join(parent, "sibling.txt"), "noise\n")
	if err := os.Mkdir(filepath.Join(parent, "vault2"), 0o755); err != nil {
		t.Fatal(err)
	}
	unchanged(t, w, g)
}

func TestEventStorm(t *testing.T) {
	skipWithoutBarrier(t)
	root := tempDir(t)
	w := newWatcher(t, root)
	g := synced(t, w)
	for i := range 10000 {
		write(t, filepath.Join(root, fmt.Sprintf("p%05d.md", i)), "x\n")
	}
	g = changed(t, w, g, "10,000 files")
	unchanged(t, w, g)
	write(t, filepath.Join(root, "p00001.md"), "y\n")
	changed(t, w, g, "one file after the storm")
}

// TestOverflow stalls the consumer until the kernel's queue
// (fs.inotify.max_queued_events, 16384 by default) overflows for real.
func TestOverflow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the queue bound is inotify's")
	}
	root := tempDir(t)
	hold := make(chan struct{})
	w := fswatch.NewHeld(fswatch.Options{}, hold)
	t.Cleanup(func() { _ = w.Close() })
	w.Watch(root)
	max := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		fmt.Sscan(strings.TrimSpace(string(b)), &max)
	}
	if max > 200000 {
		t.Skipf("max_queued_events is %d: too many files to make", max)
	}
	// While our consumer is held, fsnotify's reader still drains one read
	// buffer from the kernel (64 KiB: about 2,000 events of these names)
	// plus the event it blocks on, so max+100 files could stay under the
	// bound (TestOverflow failed that way on a loaded machine); twice the
	// bound always overflows.
	n := 2 * max
	for i := range n {
		write(t, filepath.Join(root, fmt.Sprintf("f%06d", i)), "")
	}
	close(hold) // the consumer runs freely from now on
	g := synced(t, w)
	if s := w.State(); s.Overflows == 0 {
		t.Fatalf("no overflow reported after %d files: %s", n, s)
	}
	unchanged(t, w, g)
	write(t, filepath.Join(root, "after"), "x\n")
	changed(t, w, g, "a change after the overflow")
	if s := w.State(); s.Mode != fswatch.Events {
		t.Fatalf("not recovered: %s", s)
	}
}

func TestSymlinkedComponentFallsBack(t *testing.T) {
	skipWithoutBarrier(t)
	parent := tempDir(t)
	real := filepath.Join(parent, "real")
	if err := os.MkdirAll(filepath.Join(real, "vault"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(parent, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(parent, "a", "vault")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t, root)
	g := synced(t, w)
	// The component "a" becomes a symlink to elsewhere.
	if err := os.Rename(filepath.Join(parent, "a"), filepath.Join(parent, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(parent, "a")); err != nil {
		t.Fatal(err)
	}
	if g2, ok := w.Sync(); ok {
		t.Fatalf("Sync proved freshness (gen %d, was %d) with a symlinked component", g2, g)
	}
	if s := w.State(); s.Mode != fswatch.Revalidate || !strings.Contains(s.Reason, "symbolic link") {
		t.Fatalf("state %s", s)
	}
	for _, p := range w.Watched() {
		if strings.HasPrefix(p, real) {
			t.Fatalf("%s is watched: a symlink was followed", p)
		}
	}
	// Back to a directory: the watcher recovers (retries after a second).
	if err := os.Remove(filepath.Join(parent, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(parent, "gone"), filepath.Join(parent, "a")); err != nil {
		t.Fatal(err)
	}
	waitMode(t, w, fswatch.Events)
}

func TestFIFOAndSymlinkEntries(t *testing.T) {
	skipWithoutBarrier(t)
	root := tempDir(t)
	elsewhere := tempDir(t)
	page := filepath.Join(root, "p.md")
	write(t, page, "x\n")
	w := newWatcher(t, root)
	g := synced(t, w)
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(page); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	g = changed(t, w, g, "file replaced by a FIFO")
	unchanged(t, w, g)
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, page); err != nil {
		t.Fatal(err)
	}
	g = changed(t, w, g, "FIFO replaced by a symlink to a directory")
	// The link's target is not watched: the watcher never follows it.
	write(t, filepath.Join(elsewhere, "inside.md"), "x\n")
	unchanged(t, w, g)
	for _, p := range w.Watched() {
		if strings.HasPrefix(p, elsewhere) || p == page {
			t.Fatalf("%s is watched: a symlink was followed", p)
		}
	}
}

func TestMaxWatchesFallsBackAndRecovers(t *testing.T) {
	skipWithoutBarrier(t)
	root := tempDir(t)
	w := fswatch.New(fswatch.Options{MaxWatches: len(strings.Split(root, string(filepath.Separator))) + 3})
	t.Cleanup(func() { _ = w.Close() })
	w.Watch(root)
	synced(t, w)
	for i := range 5 {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := w.Sync(); ok {
		t.Fatal("Sync proved freshness past the watch bound")
	}
	if s := w.State(); s.Mode != fswatch.Revalidate || !strings.Contains(s.Reason, "directories to watch") {
		t.Fatalf("state %s", s)
	}
	for i := range 5 {
		if err := os.Remove(filepath.Join(root, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	waitMode(t, w, fswatch.Events)
}

// waitMode calls Sync until the watcher reports mode (its retry runs at
// most once a second), for at most ten seconds of retries.
func waitMode(t *testing.T, w *fswatch.Watcher, mode fswatch.Mode) {
	t.Helper()
	for range 100 {
		if _, ok := w.Sync(); ok == (mode == fswatch.Events) && w.State().Mode == mode {
			return
		}
		sleep100ms()
	}
	t.Fatalf("watcher did not reach %s: %s", mode, w.State())
}

func TestTreesHaveTheirOwnGenerations(t *testing.T) {
	skipWithoutBarrier(t)
	parent := tempDir(t)
	a, b := filepath.Join(parent, "a"), filepath.Join(parent, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := newWatcher(t, a, b)
	ga, _ := w.Sync(a)
	gb, _ := w.Sync(b)
	write(t, filepath.Join(a, "p.md"), "x\n")
	if g, ok := w.Sync(b); !ok || g != gb {
		t.Fatalf("a change in a moved b's generation (%d -> %d, ok %v)", gb, g, ok)
	}
	if g, ok := w.Sync(a); !ok || g == ga {
		t.Fatalf("a change in a left a's generation at %d (ok %v)", g, ok)
	}
	// A change on b's path (b renamed away) moves b's.
	if err := os.Rename(b, b+".old"); err != nil {
		t.Fatal(err)
	}
	if g, ok := w.Sync(b); !ok || g == gb {
		t.Fatalf("b renamed away left b's generation at %d (ok %v)", g, ok)
	}
}

// The barrier renames one cookie file from call to call (issue 19): the
// change made before each Sync must still be counted by it, concurrent
// barriers must each get their own proof, the cookie directory must hold
// one file however many barriers ran, and a cookie removed behind the
// watcher's back (a temporary-directory cleaner) must not cost the proof.
func TestBarrierRenamesOneCookie(t *testing.T) {
	skipWithoutBarrier(t)
	parent := tempDir(t)
	root := filepath.Join(tempDir(t), "vault")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	w := fswatch.New(fswatch.Options{CookieDir: parent})
	t.Cleanup(func() { _ = w.Close() })
	w.Watch(root)
	cookies := func() []string {
		t.Helper()
		dirs, err := filepath.Glob(filepath.Join(parent, "git-echoes-watch-*"))
		if err != nil || len(dirs) != 1 {
			t.Fatalf("cookie directories: %v %v", dirs, err)
		}
		es, err := os.ReadDir(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range es {
			names = append(names, filepath.Join(dirs[0], e.Name()))
		}
		return names
	}
	g := synced(t, w)
	for i := range 50 {
		write(t, filepath.Join(root, fmt.Sprintf("p%d.md", i)), "x")
		g = changed(t, w, g, fmt.Sprintf("write %d", i))
		unchanged(t, w, g)
	}
	if c := cookies(); len(c) != 1 {
		t.Fatalf("after 100 barriers the cookie directory holds %v", c)
	}
	for _, c := range cookies() {
		if err := os.Remove(c); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "after-clean.md"), "x")
	g = changed(t, w, g, "a write after the cookie was removed")
	unchanged(t, w, g)

	errs := make(chan error, 8)
	for k := range 8 {
		go func() {
			for i := range 20 {
				g0, ok0 := w.Sync()
				if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("c%d-%d.md", k, i)), []byte("x"), 0o644); err != nil {
					errs <- err
					return
				}
				g1, ok1 := w.Sync()
				if !ok0 || !ok1 || g1 == g0 {
					errs <- fmt.Errorf("barrier %d/%d: %d,%v then %d,%v after its write", k, i, g0, ok0, g1, ok1)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if c := cookies(); len(c) != 1 {
		t.Fatalf("after concurrent barriers the cookie directory holds %v", c)
	}
}
