package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/find"
)

// TestMCPFind: echoes_find answers as `git echoes find` does (the same
// engine and renderer), keeps to its budget and to --max-output, refuses
// the user scope unless the server allows it, and reports bad input as a
// tool error.
func TestMCPFind(t *testing.T) {
	e := newMCPEnv(t)
	page := "---\ntype: decision\nstack: api\nstatus: active\nsummary: How the API throttles each token\n---\n# Throttle\n\nWe rate-limit requests per token.\n"
	if err := os.WriteFile(filepath.Join(e.repo, "EchoesVault", "pages", "limits.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	s := e.serve(t, serveOpts{vault: true})
	got := ok(t, s, "echoes_find", map[string]any{"query": "rate limits", "format": "text"})
	eng, err := gitvault.Open(gitvault.Options{Workspace: e.repo})
	if err != nil {
		t.Fatal(err)
	}
	res, err := find.Find(eng.WS, find.Options{Query: "rate limits"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := res.Render("text", 0)
	if got != want || !strings.Contains(got, "limits.md") {
		t.Errorf("echoes_find:\n%s\nthe command:\n%s", got, want)
	}
	j := ok(t, s, "echoes_find", map[string]any{"query": "token", "budget": 2000})
	if len([]rune(j)) > 2000 || !strings.Contains(j, `"omitted": 0`) {
		t.Errorf("json answer:\n%s", j)
	}
	for _, args := range []map[string]any{
		{"query": `"unbalanced`},
		{"query": "token", "scope": []string{"user"}},
		{"query": "token", "budget": 5},
		{"query": "token", "kind": []string{"nope"}},
	} {
		res, err := call(t, s, "echoes_find", args)
		if err != nil || !res.IsError {
			t.Errorf("%v: want a tool error, got %v %v", args, err, res)
		}
	}
}
