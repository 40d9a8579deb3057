package health

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestInspectReportsFIFOs (issue 11 item 4): a FIFO where a page, the
// state, the index or the marker belongs never blocks inspect, which
// reports it in health.irregularFiles and on the card. The writers'
// refusals are tested in gitvault (TestFIFOsNeverBlock).
func TestInspectReportsFIFOs(t *testing.T) {
	cases := []struct {
		name   string
		path   func(ws *gitvault.Workspace) string
		report string
	}{
		{"page", func(ws *gitvault.Workspace) string { return filepath.Join(ws.Pages, "f.md") }, "EchoesVault/pages/f.md: a FIFO (named pipe)"},
		{"state", func(ws *gitvault.Workspace) string { return ws.State }, ".echoes-vault/state.json: a FIFO (named pipe)"},
		{"index", func(ws *gitvault.Workspace) string { return ws.Index }, "EchoesVault/index.md: a FIFO (named pipe)"},
		{"marker", func(ws *gitvault.Workspace) string { return ws.Marker }, "EchoesVault/.echoes-vault.json: a FIFO (named pipe)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := initVault(t)
			p := c.path(e.WS)
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			testenv.MakeFIFO(t, p)
			in := testenv.ReturnsWithin(t, "inspect", func() *Inspection { return Inspect(e) })
			h := in.Health
			if !slices.Contains(h.IrregularFiles, c.report) || h.Healthy {
				t.Errorf("irregularFiles = %q (healthy %v), want %q", h.IrregularFiles, h.Healthy, c.report)
			}
			if card := in.Card(); h.Initialized && !strings.Contains(card, "files that are not regular files: 1") {
				t.Errorf("card does not report it:\n%s", card)
			}
			hj, _ := in.JSON().Obj.Get("health")
			if v, ok := hj.Obj.Get("irregularFiles"); !ok || len(v.Arr) != 1 || v.Arr[0].S != c.report {
				t.Errorf("health.irregularFiles = %+v", v)
			}
		})
	}
}
