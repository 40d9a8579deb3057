package gitvault

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func TestBrowsePages(t *testing.T) {
	ws := t.TempDir()
	e, err := Open(Options{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if err := testInit(e); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(e.WS.Pages, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.md", "---\ntype: guide\nstack:\n  - go\n  - 'sql'\nstatus: Deprecated\nsummary: \"B page.\"\nextra: x\n---\n\nBody [[a]].\r\n")
	write("a.md", "---\ntype: note\nstack: [\"py\", js]\nstatus: active\nsummary: A.\n---\nA body\n")
	write("bad.md", "no frontmatter\n")
	// A symlinked page is not listed (where symlinks can be made: not
	// always on Windows, never under Wine).
	if err := os.Symlink(filepath.Join(e.WS.Pages, "a.md"), filepath.Join(e.WS.Pages, "link.md")); err != nil && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	pages, err := e.BrowsePages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || pages[0].Name != "a.md" || pages[1].Name != "b.md" || pages[2].Name != "bad.md" {
		t.Fatalf("pages %+v", pages)
	}
	a, b, bad := pages[0], pages[1], pages[2]
	if a.Type != "note" || a.Status != "active" || a.Summary != "A." || !reflect.DeepEqual(a.Stack, []string{"py", "js"}) || a.Body != "A body" || a.Err != "" {
		t.Errorf("a: %+v", a)
	}
	if r, err := e.ReadPage("a.md"); err != nil || a.SHA256 != r.SHA256 {
		t.Errorf("a hash %s, ReadPage %v %v", a.SHA256, r, err)
	}
	if !b.Deprecated() || b.Type != "guide" || b.Summary != "B page." || !reflect.DeepEqual(b.Stack, []string{"go", "sql"}) || b.Body != "\nBody [[a]]." {
		t.Errorf("b: %+v", b)
	}
	if len(b.Frontmatter) != 5 || b.Frontmatter[4] != (FrontmatterField{Key: "extra", Raw: "x"}) {
		t.Errorf("b frontmatter %+v", b.Frontmatter)
	}
	if bad.Err == "" || bad.Body != "no frontmatter" {
		t.Errorf("bad: %+v", bad)
	}
	names, err := e.PageNames()
	if err != nil || !reflect.DeepEqual(names, []string{"a.md", "b.md", "bad.md"}) {
		t.Errorf("PageNames %v %v", names, err)
	}
}

func TestParseDailyName(t *testing.T) {
	for _, c := range []struct{ in, stamp, kind, agent string }{
		{"20260101T120000123456Z-session-claude-code-0a1b2c3d.md", "20260101T120000123456Z", "session", "claude-code"},
		{"20260101T120000123456Z-scratchpad-0a1b2c3d.md", "20260101T120000123456Z", "scratchpad", ""},
		{"notes.md", "", "", ""},
	} {
		s, k, a := ParseDailyName(c.in)
		if s != c.stamp || k != c.kind || a != c.agent {
			t.Errorf("%s: %q %q %q", c.in, s, k, a)
		}
	}
}
