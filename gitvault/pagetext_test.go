package gitvault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func searchJSON(t *testing.T, e *Engine, q string, limit int) string {
	t.Helper()
	res, err := e.Search(q, limit)
	if err != nil {
		return "error: " + ErrorMessage(err)
	}
	return pyjson.Pretty(res.JSON())
}

// A long-lived engine that keeps page texts answers every search exactly
// as a fresh engine does, through same-size edits with the mtime put back,
// removals, additions, undecodable pages, and past its byte bound.
func TestSearchWithKeptTextsMatchesFresh(t *testing.T) {
	shortGranule(t)
	for _, bound := range []int{0, 300} { // 300 bytes: most pages do not fit
		e := cacheVault(t, 12)
		writePage(t, e, "p050.md", page("Unicode.", "active")+"Die Straße zum Café.\n")
		live := reopen(t, e, false)
		live.KeepPageTexts(bound)
		check := func(step string) {
			t.Helper()
			for _, q := range []string{"summary", "body", "Summary 1", "zzz", "CAFÉ", "strasse", "caf"} {
				for _, limit := range []int{1, 5, 100} {
					if got, want := searchJSON(t, live, q, limit), searchJSON(t, reopen(t, e, true), q, limit); got != want {
						t.Fatalf("bound %d, %s, search %q limit %d:\n%s\n---\n%s", bound, step, q, limit, got, want)
					}
				}
			}
		}
		check("cold")
		settle()
		check("warm")
		if bound > 0 && live.texts.bytes > bound {
			t.Errorf("kept %d bytes of text, bound %d", live.texts.bytes, bound)
		}
		p := filepath.Join(e.WS.Pages, "p004.md")
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		writePage(t, e, "p004.md", strings.Replace(page("Summary 4.", "active"), "Body.", "Zzz..", 1))
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		check("same-size edit")
		settle()
		check("same-size edit, settled")
		if err := os.Remove(filepath.Join(e.WS.Pages, "p005.md")); err != nil {
			t.Fatal(err)
		}
		writePage(t, e, "p100.md", page("Summary 100.", "active"))
		check("removal and addition")
		writePage(t, e, "p006.md", "---\n\xff\n")
		check("undecodable page")
		settle()
		check("undecodable page, settled")
		if err := os.Remove(filepath.Join(e.WS.Pages, "p006.md")); err != nil {
			t.Fatal(err)
		}
		settle()
		check("undecodable page removed")
		if _, ok := live.texts.entries["p005.md"]; ok {
			t.Error("a removed page is still kept")
		}
	}
}
