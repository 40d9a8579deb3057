package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func decode(t *testing.T, out string) *pyjson.Obj {
	t.Helper()
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("not one compact JSON line: %q", out)
	}
	v, err := pyjson.Decode(out)
	if err != nil || v.Kind != pyjson.Object {
		t.Fatalf("invalid JSON %q: %v", out, err)
	}
	return v.Obj
}

func context(t *testing.T, out string) string {
	t.Helper()
	hso, ok := decode(t, out).Get("hookSpecificOutput")
	if !ok {
		t.Fatalf("no hookSpecificOutput: %s", out)
	}
	c, _ := hso.Obj.Get("additionalContext")
	return c.S
}

func event(dir, source string) *strings.Reader {
	return strings.NewReader(pyjson.Compact(pyjson.ObjectValue(pyjson.NewObj().
		Set("cwd", pyjson.Str(dir)).Set("source", pyjson.Str(source)))))
}

func TestSessionStart(t *testing.T) {
	dir := t.TempDir()
	if got := SessionStart(event(dir, "startup")); got != silent {
		t.Fatalf("no vault: %q", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, "EchoesVault"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A symlinked marker does not count as a vault.
	if err := os.Symlink("elsewhere", filepath.Join(dir, "EchoesVault", ".echoes-vault.json")); err != nil {
		t.Fatal(err)
	}
	if got := SessionStart(event(dir, "startup")); got != silent {
		t.Fatalf("symlinked marker: %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "EchoesVault", "index.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"startup", "resume", "clear", ""} {
		c := context(t, SessionStart(event(dir, src)))
		if !strings.HasPrefix(c, plainContext+cardContext+"\n\n### EchoesVault · ") || len([]rune(c)) > CardBudget {
			t.Errorf("source %q: context %q", src, c)
		}
	}
	if c := context(t, SessionStart(event(dir, "compact"))); c != plainContext || len([]rune(c)) > PlainBudget {
		t.Errorf("compact: %q", c)
	}
	if _, err := os.Stat(filepath.Join(dir, ".echoes-vault")); !os.IsNotExist(err) {
		t.Errorf("the hook created .echoes-vault: %v", err)
	}
}

// A vault whose managed paths escape the workspace through a symlink gets
// the "Status unavailable" card, not silence: the hook locates the
// workspace without the confinement check that refuses to open it.
func TestSessionStartEscapingVaultIsUnavailable(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "EchoesVault"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "EchoesVault", "index.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".echoes-vault")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Skipf("cannot create a symlink here: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("os.Symlink reported success but made no symlink (Wine): %v", err)
	}
	if c := context(t, SessionStart(event(dir, "startup"))); c != plainContext+cardContext+"\n\n"+UnavailableCard {
		t.Errorf("context %q", c)
	}
}

func TestFitCardDropsWholeLines(t *testing.T) {
	card := "### T\n\n" + strings.Repeat("x", 50) + "\n\n" + strings.Repeat("é", 50)
	if got := fitCard("P\n\n", card, 1000); got != "P\n\n"+card {
		t.Fatalf("fits: %q", got)
	}
	got := fitCard("P\n\n", card, 100) // 3 + 5 + 2 + 50 + 2 + 50 = 112 code points
	if got != "P\n\n### T\n\n"+strings.Repeat("x", 50) {
		t.Fatalf("truncated: %q", got)
	}
	if got := fitCard("P\n\n", card, 3); got != "P" {
		t.Fatalf("nothing fits: %q", got)
	}
}
