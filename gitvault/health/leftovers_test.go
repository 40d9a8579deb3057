package health

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestReadOnlyCommandsKeepTemps: inspect never takes the lock, so it never
// removes anything (echoes-conformance §15 read-only commands).
func TestReadOnlyCommandsKeepTemps(t *testing.T) {
	e := initVault(t)
	p := filepath.Join(e.WS.Pages, ".a.md.abcd1234.tmp")
	testenv.WriteFile(t, p, "partial")
	// Older than fsx.StaleTempAge: a writer would sweep it, inspect never does.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	Inspect(e)
	if _, err := os.Lstat(p); err != nil {
		t.Fatalf("inspect removed %s: %v", p, err)
	}
}
