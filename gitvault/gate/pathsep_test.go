package gate

import (
	"path/filepath"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// check's findings are workspace-relative with "/" on every OS (its own
// JSON, read by CI annotations), unlike the OS separators of search's file
// (gitvault.TestJSONPathSeparators holds the other commands). This test
// runs on Windows too.
func TestCheckPathSeparators(t *testing.T) {
	e, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	root := e.WS.Root
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/auth.md"), "---\ntype: note\nstack: go\nstatus: active\nsummary: Token flow.\n---\nBody.\n")
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/daily/2026-01-01/x.md"), "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> o\n")
	testenv.WriteFile(t, filepath.Join(root, ".claude/skills/echoes-vault/SKILL.md"), "my own skill\n")
	testenv.WriteFile(t, filepath.Join(root, ".opencode/commands/echoes-end.md"), "my own command\n")
	cr, err := Check(e, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := cr.JSON().Obj.Get("findings")
	if len(fs.Arr) != 3 {
		t.Fatalf("findings = %v", pyjson.Pretty(fs))
	}
	if p, _ := fs.Arr[0].Obj.Get("path"); p.S != "EchoesVault/daily/2026-01-01/x.md" {
		t.Errorf("check path = %q, want slashes", p.S)
	}
}
