package gitvault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestFIFOsNeverBlock (issue 11 item 4): a FIFO where a page, state.json,
// index.md or the marker belongs makes writers refuse with a clear error
// before any write, and inspect/status return and report it; nothing ever
// waits for a writer on the FIFO.
func TestFIFOsNeverBlock(t *testing.T) {
	type run struct {
		name string
		f    func(e *Engine) error
	}
	upsert := run{"upsert", func(e *Engine) error {
		_, err := e.Upsert(racePayload("filename", "f", "content", racePage("F.", "body")))
		return err
	}}
	appendE := run{"append", func(e *Engine) error {
		_, err := e.Append(racePayload("entry", "did things"))
		return err
	}}
	hydrate := run{"hydrate", func(e *Engine) error { _, err := e.Hydrate(); return err }}
	rebuild := run{"rebuild-index", func(e *Engine) error { _, err := e.RebuildIndex(); return err }}
	start := run{"start", func(e *Engine) error { _, err := e.Start(3); return err }}
	hash := run{"hash", func(e *Engine) error { _, err := e.Hash("f"); return err }}
	cases := []struct {
		name   string
		path   func(ws *Workspace) string
		report string // health.irregularFiles entry
		runs   []run
		want   string // in every run's error
	}{
		{"page", func(ws *Workspace) string { return filepath.Join(ws.Pages, "f.md") },
			"EchoesVault/pages/f.md: a FIFO (named pipe)", []run{upsert}, "not a regular file"},
		{"state", func(ws *Workspace) string { return ws.State },
			".echoes-vault/state.json: a FIFO (named pipe)", []run{appendE, upsert, hydrate, rebuild, start}, "it is a FIFO (named pipe), not a regular file"},
		{"index", func(ws *Workspace) string { return ws.Index },
			"EchoesVault/index.md: a FIFO (named pipe)", []run{hydrate, rebuild, upsert, start}, "it is a FIFO (named pipe), not a regular file"},
		{"marker", func(ws *Workspace) string { return ws.Marker },
			"EchoesVault/.echoes-vault.json: a FIFO (named pipe)", []run{appendE, upsert, hydrate, start, hash}, "Invalid EchoesVault marker: not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := initVault(t)
			p := c.path(e.WS)
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			testenv.MakeFIFO(t, p)
			before := testenv.TreeState(t, e.WS.Root)
			for _, r := range c.runs {
				err := testenv.ReturnsWithin(t, r.name, func() error { return r.f(e) })
				if err == nil || !strings.Contains(ErrorMessage(err), c.want) {
					t.Errorf("%s: err = %v, want one containing %q", r.name, err, c.want)
				}
			}
			after := testenv.TreeState(t, e.WS.Root)
			for k, v := range after {
				// The lock comes and goes in .echoes-vault/, whose own
				// mtime therefore moves; everything in it is compared.
				if before[k] != v && k != e.WS.RuntimeDir {
					t.Errorf("changed: %s", k)
				}
			}
			if len(after) != len(before) {
				t.Errorf("files added or removed: %d -> %d", len(before), len(after))
			}
		})
	}
}
