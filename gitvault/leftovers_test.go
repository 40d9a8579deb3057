package gitvault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/testenv"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// plantTemp writes a leftover temporary file (the name pattern of
// fsx.TempName, echoes-conformance §5 step 3) aged by age.
func plantTemp(t *testing.T, dir, name string, age time.Duration) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	mt := time.Now().Add(-age)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWritersRemoveStaleTemps (issue 11 item 1): a writer, under the lock,
// removes the stale temporary files crashed writes left in each directory
// it writes (append: today's daily directory and .echoes-vault/; upsert:
// pages/, EchoesVault/ and .echoes-vault/), hydrate and rebuild-index in
// every directory the engine writes; a fresh one (a live writer's), files
// that only look alike and other directories are left alone.
func TestWritersRemoveStaleTemps(t *testing.T) {
	for _, c := range []struct {
		cmd   string
		swept []string // keys of the planted stale temps this command removes
	}{
		{"upsert", []string{"pages", "vault", "runtime"}},
		{"append", []string{"today", "runtime"}},
		{"hydrate", []string{"pages", "vault", "runtime", "today", "olddaily"}},
		{"rebuild-index", []string{"pages", "vault", "runtime", "today", "olddaily"}},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			e := initVault(t)
			ws := e.WS
			today := Now().UTC().Format("2006-01-02")
			stale := map[string]string{
				"pages":    plantTemp(t, ws.Pages, ".a.md.abcd1234.tmp", time.Hour),
				"today":    plantTemp(t, filepath.Join(ws.Daily, today), ".e.md.x_y_z_09.tmp", time.Hour),
				"olddaily": plantTemp(t, filepath.Join(ws.Daily, "2001-01-01"), ".e.md.x_y_z_09.tmp", time.Hour),
				"vault":    plantTemp(t, ws.Vault, ".index.md.qqqqqqqq.tmp", time.Hour),
				"runtime":  plantTemp(t, ws.RuntimeDir, ".state.json.abcdefgh.tmp", time.Hour),
			}
			kept := []string{
				plantTemp(t, ws.Pages, ".b.md.abcd1234.tmp", 0),           // a live writer's
				plantTemp(t, ws.Pages, ".notes.tmp", time.Hour),           // not our pattern
				plantTemp(t, ws.Assets, ".x.png.abcd1234.tmp", time.Hour), // not a directory we write
				plantTemp(t, ws.Root, ".AGENTS.md.abcd1234.tmp", time.Hour),
			}
			var err error
			switch c.cmd {
			case "upsert":
				_, err = e.Upsert(racePayload("filename", "p", "content", racePage("Page p.", "body")))
			case "append":
				_, err = e.Append(racePayload("entry", "did things", "agent", "codex"))
			case "hydrate":
				_, err = e.Hydrate()
			case "rebuild-index":
				_, err = e.RebuildIndex()
			}
			if err != nil {
				t.Fatal(err)
			}
			for key, p := range stale {
				_, err := os.Lstat(p)
				if gone := os.IsNotExist(err); gone != slices.Contains(c.swept, key) {
					t.Errorf("%s: stale temp %s (%s) removed = %v", c.cmd, key, p, gone)
				}
			}
			for _, p := range kept {
				if _, err := os.Lstat(p); err != nil {
					t.Errorf("%s removed %s: %v", c.cmd, p, err)
				}
			}
		})
	}
}

// TestReadinessIgnoresTemps (issue 11 item 1): a leftover temporary file is
// not an untracked durable file and is never suggested for git add.
func TestReadinessIgnoresTemps(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(t.TempDir(), "repo"))
	e, err := Open(Options{Workspace: top})
	if err != nil {
		t.Fatal(err)
	}
	if err := testInit(e); err != nil {
		t.Fatal(err)
	}
	plantTemp(t, e.WS.Pages, ".a.md.abcd1234.tmp", 0)
	plantTemp(t, filepath.Join(e.WS.Daily, "2026-01-01"), ".e.md.abcd1234.tmp", 0)
	testenv.WriteFile(t, filepath.Join(top, "EchoesVault/pages/real.md"), page("Real.", "active"))
	g := e.WS.GitReadiness()
	if !slices.Contains(g.UntrackedDurableFiles, "EchoesVault/pages/real.md") {
		t.Fatalf("scenario broken: untracked = %q", g.UntrackedDurableFiles)
	}
	for _, f := range append(append([]string{}, g.UntrackedDurableFiles...), g.SuggestedCommands...) {
		if strings.Contains(f, ".tmp") {
			t.Errorf("temporary file reported: %q", f)
		}
	}
}
