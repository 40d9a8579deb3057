package gitvault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// TestSearchSemantics covers echoes-conformance §15.7: casefold matching,
// splitlines numbering with frontmatter included, stripped text cut at 300
// code points, listing order, on-disk names, pages only.
func TestSearchSemantics(t *testing.T) {
	root := t.TempDir()
	e, err := Open(Options{Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := testInit(e); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 310)
	files := map[string]string{
		"b.md":  "---\ntype: t\nstack: []\nstatus: active\nsummary: Straße one.\n---\nx\u2028  STRASSE two  \n",
		"A.MD":  "---\ntype: t\nstack: []\nstatus: active\nsummary: s\n---\n\t" + long + " strasse\n",
		"c.txt": "strasse\n",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(e.WS.Pages, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(e.WS.Daily, "2026-01-01"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.WS.Daily, "2026-01-01", "x.md"), []byte("strasse\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sr, err := e.Search("  strasse ", 0)
	if err != nil {
		t.Fatal(err)
	}
	res := sr.JSON()
	want := `{
  "ok": true,
  "query": "strasse",
  "truncated": true,
  "results": [
    {
      "file": "` + strings.ReplaceAll(filepath.FromSlash("EchoesVault/pages/A.MD"), `\`, `\\`) + `",
      "line": 7,
      "text": "` + strings.Repeat("é", 300) + `"
    }
  ]
}
`
	if got := pyjson.Pretty(res); got != want {
		t.Fatalf("limit 1:\n%s", got)
	}
	sr, err = e.Search("STRAßE", 500)
	if err != nil {
		t.Fatal(err)
	}
	res = sr.JSON()
	var lines []string
	results, _ := res.Obj.Get("results")
	for _, r := range results.Arr {
		f, _ := r.Obj.Get("file")
		l, _ := r.Obj.Get("line")
		x, _ := r.Obj.Get("text")
		lines = append(lines, f.S+":"+pyjson.Repr(l)+":"+x.S)
	}
	// results[].file uses the OS separator (echoes-conformance §15.7).
	wantLines := []string{
		filepath.FromSlash("EchoesVault/pages/A.MD") + ":7:" + strings.Repeat("é", 300),
		filepath.FromSlash("EchoesVault/pages/b.md") + ":5:summary: Straße one.",
		filepath.FromSlash("EchoesVault/pages/b.md") + ":8:STRASSE two",
	}
	if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("results:\n%s", strings.Join(lines, "\n"))
	}
	if tr, _ := res.Obj.Get("truncated"); tr.B {
		t.Fatal("truncated with 3 matches and limit 500")
	}
	if _, err := e.Search(" \u2028 ", 10); err == nil || err.Error() != "Search query cannot be empty." {
		t.Fatalf("empty query: %v", err)
	}
}
