package gitvault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestDailyReads: DailyEntries lists regular daily entries newest first;
// ReadDaily reads exactly those and nothing else (no path outside daily/,
// no symlink, no directory); PageNames lists the pages; all of it writes
// nothing.
func TestDailyReads(t *testing.T) {
	e := initVault(t)
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(e.WS.Daily, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("2026-01-01/20260101T000000000000Z-session-a-00000000.md", "old\n")
	write("2026-02-01/20260201T000000000000Z-session-a-00000000.md", "new\n")
	write("2026-02-01/notes.txt", "not an entry\n")
	if err := os.WriteFile(filepath.Join(e.WS.Pages, "auth.md"), []byte(page("Auth", "active")), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.SymlinkOrSkip(t, outside, filepath.Join(e.WS.Daily, "2026-02-01", "link.md"))
	before := testenv.TreeState(t, e.WS.Root)

	entries, err := e.DailyEntries()
	if err != nil {
		t.Fatal(err)
	}
	want := "2026-02-01/20260201T000000000000Z-session-a-00000000.md 2026-01-01/20260101T000000000000Z-session-a-00000000.md"
	if got := strings.Join(entries, " "); got != want {
		t.Errorf("entries: %s", got)
	}
	if text, err := e.ReadDaily(entries[1]); err != nil || text != "old\n" {
		t.Errorf("read: %q %v", text, err)
	}
	for _, bad := range []string{"2026-02-01/link.md", "2026-02-01/notes.txt", "2026-02-01", "../pages/auth.md",
		"2026-01-01/../2026-02-01/20260201T000000000000Z-session-a-00000000.md", "/etc/passwd", ""} {
		if text, err := e.ReadDaily(bad); err == nil || strings.Contains(text, "secret") {
			t.Errorf("%q: read %q", bad, text)
		}
	}
	if names, err := e.PageNames(); err != nil || strings.Join(names, " ") != "auth.md" {
		t.Errorf("pages: %v %v", names, err)
	}
	if after := testenv.TreeState(t, e.WS.Root); len(after) != len(before) {
		t.Error("a read wrote something")
	} else {
		for p, d := range before {
			if after[p] != d {
				t.Errorf("changed: %s", p)
			}
		}
	}
}
