package fswatch_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// TestWatchLimit reaches the kernel's own limit on inotify watches. The
// limit is per user namespace (/proc/sys/user/max_inotify_watches), so the
// test re-runs itself in a new one (unshare -Ur) with a limit of a few
// watches, leaving the machine's limit alone.
func TestWatchLimit(t *testing.T) {
	if os.Getenv("FSWATCH_LIMIT") == "" {
		unshare, err := exec.LookPath("unshare")
		if err == nil {
			err = exec.Command(unshare, "-Ur", "true").Run()
		}
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("unshare -Ur is needed to set a watch limit: %v", err)
			}
			t.Skip("cannot make a user namespace:", err)
		}
		root := tempDir(t)
		limit := len(strings.Split(root, "/")) + 2 // the path, the barrier directory, one more
		cmd := exec.Command(unshare, "-Ur", "sh", "-c",
			fmt.Sprintf("echo %d > /proc/sys/user/max_inotify_watches && exec \"$0\" -test.run '^TestWatchLimit$' -test.v", limit), os.Args[0])
		cmd.Env = append(os.Environ(), "FSWATCH_LIMIT="+root)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestWatchLimit") {
			t.Fatalf("in a user namespace with max_inotify_watches=%d: %v\n%s", limit, err, out)
		}
		return
	}
	root := os.Getenv("FSWATCH_LIMIT")
	w := newWatcher(t, root)
	synced(t, w)
	for i := range 4 {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := w.Sync(); ok {
		t.Fatal("Sync proved freshness with watches missing")
	}
	if s := w.State(); s.Mode != fswatch.Revalidate || !strings.Contains(s.Reason, "max_user_watches") {
		t.Fatalf("state %s", s)
	}
	for i := range 4 {
		if err := os.Remove(filepath.Join(root, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	waitMode(t, w, fswatch.Events)
}
