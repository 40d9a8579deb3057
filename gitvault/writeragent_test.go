package gitvault

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// TestLastWriterAgentNormalizedTwice (echoes-conformance §14.3 Parity, echoes-conformance §13.3):
// append and end record normalize(normalize(agent)) in state.json, so a name
// cut after a '-' at 40 code points loses it there, while the daily file
// name and the command's output keep the once-normalized form; other
// commands record --agent normalized once.
func TestLastWriterAgentNormalizedTwice(t *testing.T) {
	a39 := strings.Repeat("a", 39)
	cut := a39 + "-"   // "aaa… x" normalized once: 40 code points ending in '-'
	dot := a39 + "."   // truncation after a '.'
	long := a39 + " x" // the raw name
	for _, c := range []struct {
		name, cmd         string
		payloadAgent      string // "" for none
		flagAgent         *string
		wantOut, wantFile string // once-normalized: output and daily file name
		wantState         string
	}{
		{"append cut after -", "append", long, nil, cut, cut, a39},
		{"append cut after .", "append", a39 + ".x", nil, dot, dot, a39},
		{"append --agent cut", "append", "", &long, cut, cut, a39},
		{"append short", "append", "Claude Code", nil, "claude-code", "claude-code", "claude-code"},
		{"append exactly 40", "append", strings.Repeat("b", 40), nil, strings.Repeat("b", 40), strings.Repeat("b", 40), strings.Repeat("b", 40)},
		{"end cut after -", "end", long, nil, cut, cut, a39},
		{"end --agent cut", "end", "", &long, cut, cut, a39},
		{"hydrate --agent cut (once)", "hydrate", "", &long, "", "", cut},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := initVault(t)
			e.opt.Agent = c.flagAgent
			var fields []string
			if c.payloadAgent != "" {
				fields = append(fields, "agent", c.payloadAgent)
			}
			var res pyjson.Value
			var err error
			switch c.cmd {
			case "append":
				res, err = e.Append(racePayload(append(fields, "entry", "did things")...))
			case "end":
				data := []byte(`{"dailySummary": "- Summary.", "pages": [], "indexUpdates": []}`)
				if c.payloadAgent != "" {
					data = []byte(`{"dailySummary": "- Summary.", "agent": "` + c.payloadAgent + `", "pages": [], "indexUpdates": []}`)
				}
				res, err = e.End(func() ([]byte, error) { return data, nil }, true)
			case "hydrate":
				res, err = e.Hydrate()
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.wantOut != "" {
				if got, _ := res.Get("agent"); got.S != c.wantOut {
					t.Errorf("output agent = %q, want %q", got.S, c.wantOut)
				}
				log, _ := res.Get("dailyLog")
				if base := filepath.Base(log.S); !strings.Contains(base, "-"+c.wantFile+"-") {
					t.Errorf("daily file %s does not carry the agent %q", base, c.wantFile)
				}
			}
			st := e.WS.ReadState()
			if st.WriterAgent == nil || *st.WriterAgent != c.wantState {
				t.Errorf("state.json lastWriter.agent = %v, want %q", st.WriterAgent, c.wantState)
			}
		})
	}
}
