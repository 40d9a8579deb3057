package gitvault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func sessionEntries(t *testing.T, e *Engine) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(e.WS.Daily, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), "-session-") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEndRetryAfterCrash covers issue 11 item 5: an end killed part way
// through (echoes-conformance §15.10 step 4-5) is finished by retrying the
// same payload. Pages it already wrote, updated or created, are not
// conflicts; the session entry is written once; the state is marked saved.
func TestEndRetryAfterCrash(t *testing.T) {
	for _, stage := range []string{"one page", "all pages", "pages and index", "entry"} {
		t.Run(stage, func(t *testing.T) {
			e := initVault(t)
			old := page("Old.", "active")
			if _, err := e.Upsert(pagePayload("filename", "a", "content", old)); err != nil {
				t.Fatal(err)
			}
			newA, newB := page("New a.", "active"), page("New b.", "active")
			payload := `{"dailySummary": "did things", "agent": "claude", "pages": [` +
				`{"filename": "a", "content": ` + pyjson.Quote(newA) + `, "expectedSha256": ` + pyjson.Quote(textHash(old)) + `},` +
				`{"filename": "b", "content": ` + pyjson.Quote(newB) + `}]}`
			load := func() ([]byte, error) { return []byte(payload), nil }

			// What a killed end leaves: its writes in end's order, up to a point.
			write := func(p, s string) {
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(e.WS.Pages, "a.md"), newA)
			if stage != "one page" {
				write(filepath.Join(e.WS.Pages, "b.md"), newB)
			}
			if stage == "pages and index" || stage == "entry" {
				idx, err := e.Render(nil)
				if err != nil {
					t.Fatal(err)
				}
				write(e.WS.Index, idx.Text)
			}
			var crashed string
			if stage == "entry" {
				agent := "claude"
				p, content, err := e.WS.dailyEntry(kindSession, "did things", &agent)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				write(p, string(content))
				crashed = p
			}
			if st := e.WS.ReadState(); pyjson.Truthy(st.Saved) {
				t.Fatal("state saved before the end finished")
			}

			res, err := e.End(load, true)
			if err != nil {
				t.Fatalf("retry refused: %v", err)
			}
			for name, want := range map[string]string{"a.md": newA, "b.md": newB} {
				if got, _ := os.ReadFile(filepath.Join(e.WS.Pages, name)); string(got) != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			idx, err := e.Render(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(e.WS.Index); string(got) != idx.Text {
				t.Errorf("index not refreshed:\n%s", got)
			}
			entries := sessionEntries(t, e)
			if len(entries) != 1 {
				t.Fatalf("session entries %v, want exactly one", entries)
			}
			if crashed != "" && entries[0] != crashed {
				t.Errorf("entry %s, want the killed end's %s", entries[0], crashed)
			}
			if got, _ := res.Obj.Get("dailyLog"); got.S != entries[0] {
				t.Errorf("dailyLog %q, want %q", got.S, entries[0])
			}
			if st := e.WS.ReadState(); !pyjson.Truthy(st.Saved) {
				t.Error("state not marked saved")
			}

			// A later end with the same summary is a new save: a second entry.
			again := `{"dailySummary": "did things", "agent": "claude"}`
			if _, err := e.End(func() ([]byte, error) { return []byte(again), nil }, true); err != nil {
				t.Fatal(err)
			}
			if n := len(sessionEntries(t, e)); n != 2 {
				t.Errorf("after a second end: %d session entries, want 2", n)
			}
		})
	}
}

// TestEndUnchangedPageOnly: only a page already holding the proposed text
// skips the hash check; a different current page is still a conflict, and
// upsert keeps the protocol's rule (protocol §11.3).
func TestEndUnchangedPageOnly(t *testing.T) {
	e := initVault(t)
	cur := page("Current.", "active")
	if _, err := e.Upsert(pagePayload("filename", "a", "content", cur)); err != nil {
		t.Fatal(err)
	}
	other := page("Other.", "active")
	_, err := e.End(func() ([]byte, error) {
		return []byte(`{"dailySummary": "d", "pages": [{"filename": "a", "content": ` + pyjson.Quote(other) + `}]}`), nil
	}, true)
	if err == nil || err.Error() != "Updating a.md requires expectedSha256 from the content read before writing." {
		t.Errorf("end with a changed page and no hash: %v", err)
	}
	_, err = e.End(func() ([]byte, error) {
		return []byte(`{"dailySummary": "d", "pages": [{"filename": "a", "content": ` + pyjson.Quote(other) + `, "expectedSha256": "00"}]}`), nil
	}, true)
	if err == nil || !strings.HasPrefix(err.Error(), "Concurrent change detected for a.md: expected 00, found ") {
		t.Errorf("end with a changed page and a stale hash: %v", err)
	}
	if _, err := e.Upsert(pagePayload("filename", "a", "content", cur)); err == nil {
		t.Error("upsert of unchanged content without a hash was accepted")
	}
	if len(sessionEntries(t, e)) != 0 {
		t.Error("a refused end wrote a session entry")
	}
}
