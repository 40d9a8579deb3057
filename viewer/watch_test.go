package viewer

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// The viewer's watch covers the vault and the memory roots and reports its
// mode: events where the OS gives an ordered barrier, revalidation (with a
// reason) on Windows.
func TestWatchState(t *testing.T) {
	f := newFixture(t)
	w := WatchTrees(f.eng, f.roots, false, nil)
	defer w.Close()
	s, err := New(Config{Engine: f.eng, Roots: f.roots, Token: "0123456789abcdef0123456789abcdef", Hosts: []string{"127.0.0.1:1"}, Watch: w})
	if err != nil {
		t.Fatal(err)
	}
	st, ok := s.WatchState()
	if !ok || st.Watches == 0 {
		t.Fatalf("state %v (ok %v)", st, ok)
	}
	want := fswatch.Events
	if runtime.GOOS == "windows" {
		want = fswatch.Revalidate
	}
	if st.Mode != want || (want == fswatch.Revalidate) != (st.Reason != "") {
		t.Fatalf("mode %s, want %s", st, want)
	}
	g, _ := w.Sync()
	if err := os.WriteFile(filepath.Join(f.eng.WS.Pages, "new-page.md"), []byte("---\ntype: note\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if g2, ok := w.Sync(); ok && g2 == g {
		t.Fatal("a new page did not move the watch's generation")
	}
	noWatch, err := New(Config{Engine: f.eng, Roots: f.roots, Token: "0123456789abcdef0123456789abcdef", Hosts: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := noWatch.WatchState(); ok {
		t.Fatal("a viewer without a watcher reports a state")
	}
}
