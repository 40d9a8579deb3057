//go:build unix

package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestAdapterFIFOsNeverBlock (issue 11 item 4): init, configure-agents and
// upgrade read every generated adapter file before they write it. A FIFO at
// any of them (a guide, the protocol page, a skill, an OpenCode command, an
// ignore file, the portable runtime) is refused with a clear error and
// nothing written, instead of blocking on the pipe forever.
func TestAdapterFIFOsNeverBlock(t *testing.T) {
	cases := []struct {
		name string
		path func(ws *gitvault.Workspace) string
		ops  []string
		want string
	}{
		{"AGENTS.md", func(ws *gitvault.Workspace) string { return ws.AgentsGuide }, []string{"init", "configure-agents", "upgrade"}, "Cannot read agent guide"},
		{"CLAUDE.md", func(ws *gitvault.Workspace) string { return ws.ClaudeGuide }, []string{"init", "configure-agents"}, "Cannot read agent guide"},
		{"AGENT_PROTOCOL.md", func(ws *gitvault.Workspace) string { return ws.Protocol }, []string{"init", "configure-agents"}, "Cannot read managed file"},
		{"SKILL.md", func(ws *gitvault.Workspace) string { return ws.ClaudeSkill }, []string{"init", "configure-agents"}, "not a regular file"},
		{"command", func(ws *gitvault.Workspace) string { return ws.CommandPath("echoes-start.md") }, []string{"init", "configure-agents"}, "not a regular file"},
		{"vault .gitignore", func(ws *gitvault.Workspace) string { return ws.VaultIgnore }, []string{"init", "configure-agents"}, "Cannot read ignore file"},
		{"runtime .gitignore", func(ws *gitvault.Workspace) string { return ws.RuntimeIgnore }, []string{"init", "configure-agents"}, "Cannot read ignore file"},
		{"runtime", func(ws *gitvault.Workspace) string { return ws.Runtime }, []string{"upgrade"}, "Cannot read portable runtime"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := initVault(t)
			p := c.path(e.WS)
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			testenv.MakeFIFO(t, p)
			before := testenv.TreeState(t, e.WS.Root)
			for _, op := range c.ops {
				err := testenv.ReturnsWithin(t, op, func() error { _, err := Install(e, op); return err })
				if err == nil || !strings.Contains(gitvault.ErrorMessage(err), c.want) || !strings.Contains(gitvault.ErrorMessage(err), "not a regular file") {
					t.Errorf("%s: err = %v, want one containing %q and \"not a regular file\"", op, err, c.want)
				}
			}
			after := testenv.TreeState(t, e.WS.Root)
			for k, v := range after {
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
