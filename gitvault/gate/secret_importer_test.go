package gate_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/importer"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/secretscan/secrettest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestImporterRefusesWhatTheGateRefuses (issue 22): importing notes that
// hold a credential of any corpus family is refused at the credential's
// file and line, as the gate reports it, the value in no message, and the
// workspace left as it was; the near misses import.
func TestImporterRefusesWhatTheGateRefuses(t *testing.T) {
	eng, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		t.Fatal(err)
	}
	for i, c := range secrettest.Cases() {
		src := t.TempDir()
		testenv.WriteFile(t, filepath.Join(src, ".obsidian", "app.json"), "{}")
		testenv.WriteFile(t, filepath.Join(src, "note.md"), "# Note\n\nSeen in a failing request:\n"+c.Text+"\n")
		_, err := importer.PlanImport(importer.Options{Source: src, Engine: eng})
		var ie *importer.Error
		if !errors.As(err, &ie) {
			t.Errorf("%s: imported (err %v)", c.Family, err)
			continue
		}
		text := ie.Msg
		found := false
		for _, p := range ie.Problems {
			text += "\n" + p.File + ":" + fmt.Sprint(p.Line) + ": " + p.Message
			if p.File == "note.md" && p.Line == 4 && strings.Contains(p.Message, c.RuleID) {
				found = true
			}
		}
		if !found {
			t.Errorf("%d %s: want note.md:4 naming %s, got %s", i, c.Family, c.RuleID, text)
		}
		for j := 0; j+8 <= len(c.Secret); j++ {
			if strings.Contains(text, c.Secret[j:j+8]) {
				t.Errorf("%s: the refusal holds %q", c.Family, c.Secret[j:j+8])
				break
			}
		}
	}
	src := t.TempDir()
	testenv.WriteFile(t, filepath.Join(src, ".obsidian", "app.json"), "{}")
	testenv.WriteFile(t, filepath.Join(src, "misses.md"), "# Near misses\n\n"+strings.Join(secrettest.NearMisses(), "\n\n")+"\n")
	if _, err := importer.PlanImport(importer.Options{Source: src, Engine: eng}); err != nil {
		t.Errorf("near misses refused: %v", err)
	}
	if entries, err := os.ReadDir(filepath.Join(eng.WS.Root, "EchoesVault", "pages")); err != nil || len(entries) != 0 {
		t.Errorf("pages after planning only: %v %v", entries, err)
	}
}
