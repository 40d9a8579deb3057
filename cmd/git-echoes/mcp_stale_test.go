package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMCPStale: echoes_stale is git echoes stale --format json, byte for
// byte, for every page, named pages, --rev and --memories; a report over
// --max-output drops whole documents, counts them and keeps the counts of
// all; bad input is the tool's one-line JSON error.
func TestMCPStale(t *testing.T) {
	e := newMCPEnv(t)
	e.git.Setenv(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com"}, args...)...)
		cmd.Dir, cmd.Env = e.repo, e.vars
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(e.repo, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/a.go", "package a\n")
	for i := 0; i < 12; i++ {
		write(fmt.Sprintf("EchoesVault/pages/p%02d.md", i), echoesPage(fmt.Sprintf("page %d", i), "Cites `src/a.go`.\n"))
	}
	git("add", "-A")
	git("commit", "-qm", "pages")
	write("src/a.go", "package a // changed\n")
	git("commit", "-qam", "change a")
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(mcpBinary(t), append([]string{"stale", "--format", "json"}, args...)...)
		cmd.Dir, cmd.Env = e.repo, e.vars
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("stale %v: %v", args, err)
		}
		return string(out)
	}
	s := e.serve(t, serveOpts{vault: true})
	for _, c := range []struct {
		args map[string]any
		cli  []string
	}{
		{map[string]any{}, nil},
		{map[string]any{"pages": []string{"p03", "p01.md"}}, []string{"p03", "p01.md"}},
		{map[string]any{"rev": "HEAD~1"}, []string{"--rev", "HEAD~1"}},
		{map[string]any{"memories": true}, []string{"--memories"}},
	} {
		if got, want := ok(t, s, "echoes_stale", c.args), cli(c.cli...); got != want {
			t.Errorf("echoes_stale %v:\n%s\ngit echoes stale:\n%s", c.args, got, want)
		}
	}
	toolErr(t, s, "echoes_stale", map[string]any{"pages": []string{"nope"}}, `{"ok": false, "error": "Page does not exist: nope.md"}`)
	toolErr(t, s, "echoes_stale", map[string]any{"rev": "no-such-rev"}, `{"ok": false, "error": "Unknown revision: no-such-rev"}`)
	rpcErr(t, s, "echoes_stale", map[string]any{"pages": "p01"}, "Invalid arguments for echoes_stale")

	small := e.serve(t, serveOpts{vault: true, maxOutput: 3000})
	got := decodeJSON(t, ok(t, small, "echoes_stale", map[string]any{}))
	docs := got["documents"].([]any)
	counts := got["counts"].(map[string]any)
	if got["outputTruncated"] != true || len(docs) == 0 || len(docs)+int(got["omittedDocuments"].(float64)) != 12 || counts["drifted"] != 12.0 {
		t.Errorf("bounded: %d documents, %v omitted, counts %v", len(docs), got["omittedDocuments"], counts)
	}
}
