package viewer

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/fswatch"
	"github.com/git-echoes/git-echoes/internal/testenv"
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

// Under change notification the pages index and the overview answer from
// memory, and a change made before a request is in that request: a page
// rewritten in place (same size), a page created, a page removed, round
// after round, with no pause between the write and the request.
func TestWatchedViewsSeeEveryChange(t *testing.T) {
	f := newFixture(t)
	w := WatchTrees(f.eng, f.roots, false, nil)
	defer w.Close()
	if st := w.State(); st.Mode != fswatch.Events {
		t.Skip(st.String())
	}
	s, err := New(Config{Engine: f.eng, Roots: f.roots, Token: testToken, Hosts: []string{testHost}, Watch: w})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(racyGranule) + 100*time.Millisecond) // stamps that prove something
	for range 3 {
		if code, _ := get(t, s, "/pages"); code != http.StatusOK {
			t.Fatalf("/pages: %d", code)
		}
		if code, _ := get(t, s, "/"); code != http.StatusOK {
			t.Fatalf("/: %d", code)
		}
	}
	if s.pages.skipped == 0 {
		t.Fatal("an unchanged vault was revalidated page by page on every request")
	}
	if hits, _ := s.health.Stats(); hits == 0 {
		t.Fatal("an unchanged vault was inspected again on every request")
	}
	p := filepath.Join(f.eng.WS.Pages, "watched.md")
	for i := range 60 {
		summary := fmt.Sprintf("Round %03d of the watched page.", i)
		testenv.WriteFile(t, p, "---\ntype: note\nstack: []\nstatus: active\nsummary: "+summary+"\n---\n\nBody.\n")
		_, body := get(t, s, "/pages")
		mustContain(t, body, summary)
		if i%10 == 0 {
			orphan := fmt.Sprintf("aaa-orphan-%03d", i)
			testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, orphan+".md"), "---\ntype: note\nstack: []\nstatus: active\nsummary: x\n---\n")
			_, body := get(t, s, "/")
			mustContain(t, body, orphan)
			if err := os.Remove(filepath.Join(f.eng.WS.Pages, orphan+".md")); err != nil {
				t.Fatal(err)
			}
			_, body = get(t, s, "/")
			mustNotContain(t, body, orphan)
			_, body = get(t, s, "/pages")
			mustNotContain(t, body, orphan)
		}
		if t.Failed() {
			t.Fatalf("round %d", i)
		}
	}
}
