package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestMCPReviewTools: echoes_diff and echoes_log answer from Git, write
// nothing, fail closed on bad input and stay within --max-output.
func TestMCPReviewTools(t *testing.T) {
	e := newMCPEnv(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir, cmd.Env = e.repo, e.vars
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	page := func(name, summary string) {
		testenv.WriteFile(t, filepath.Join(e.repo, "EchoesVault/pages", name), echoesPage(summary, "Body of "+name+".\n"))
	}
	page("auth.md", "Auth.")
	git("add", "-A")
	git("commit", "-qm", "base")
	git("tag", "v1")
	for i := 0; i < 30; i++ {
		page(fmt.Sprintf("p%02d.md", i), fmt.Sprintf("Page %d %s", i, strings.Repeat("x", 200)))
	}
	page("auth.md", "Auth and tokens.")
	git("add", "-A")
	git("commit", "-qm", "more", "-m", "Agent: codex")

	// init wrote the local files; the review tools must not write them back.
	for _, f := range []string{"EchoesVault/index.md", ".echoes-vault/state.json"} {
		if err := os.Remove(filepath.Join(e.repo, f)); err != nil {
			t.Fatal(err)
		}
	}
	s := e.serve(t, serveOpts{})
	md := ok(t, s, "echoes_diff", map[string]any{"revisions": []string{"v1"}})
	if !strings.HasPrefix(md, "### Memory changes\n") || !strings.Contains(md, "| <code>auth.md</code> | updated |") {
		t.Fatalf("echoes_diff markdown:\n%s", md)
	}
	js := decodeJSON(t, ok(t, s, "echoes_diff", map[string]any{"revisions": []string{"v1..HEAD"}, "format": "json"}))
	if pages := js["pages"].([]any); len(pages) != 31 {
		t.Fatalf("echoes_diff json: %d pages", len(pages))
	}
	lg := decodeJSON(t, ok(t, s, "echoes_log", map[string]any{"target": "auth"}))
	entries := lg["entries"].([]any)
	if len(entries) != 2 || entries[0].(map[string]any)["agent"] != "codex" || entries[0].(map[string]any)["summary"] != "Auth and tokens." {
		t.Fatalf("echoes_log: %v", lg)
	}
	toolErr(t, s, "echoes_diff", map[string]any{"revisions": []string{"nope"}}, "Unknown revision: nope")
	toolErr(t, s, "echoes_diff", map[string]any{}, "No upstream to compare with")
	toolErr(t, s, "echoes_log", map[string]any{"target": "../x.md"}, "Not a clean workspace-relative path")
	for _, f := range []string{"EchoesVault/index.md", ".echoes-vault/state.json"} {
		if _, err := os.Stat(filepath.Join(e.repo, f)); err == nil {
			t.Errorf("a review tool wrote %s", f)
		}
	}

	// Bounded: the Markdown keeps its "N more" line, JSON is cut by lines.
	small := e.serve(t, serveOpts{maxOutput: 2000})
	md = ok(t, small, "echoes_diff", map[string]any{"revisions": []string{"v1"}})
	if len([]rune(md)) > 2000 || !strings.Contains(md, " more ") {
		t.Fatalf("bounded echoes_diff (%d chars):\n%s", len([]rune(md)), md)
	}
	js2 := ok(t, small, "echoes_diff", map[string]any{"revisions": []string{"v1"}, "format": "json"})
	if len([]rune(js2)) > 2000 || !strings.Contains(js2, "[output truncated:") {
		t.Fatalf("bounded echoes_diff json (%d chars)", len([]rune(js2)))
	}
}
