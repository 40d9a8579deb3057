package memory

import (
	"os"
	"path/filepath"
	"testing"
)

func TestList(t *testing.T) {
	r := testRoots(t)
	save := func(title, scope string, targets []string) string {
		t.Helper()
		res, err := Save(r, SaveInput{Title: title, Body: "b", Kind: "note", Scope: scope, SourceHarness: "claude", TargetHarnesses: targets})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	a := save("a", "project", []string{"all"})
	b := save("b", "team", []string{"codex"})
	u := save("u", "user", []string{"all"})
	// An invalid file is a diagnostic, not an error.
	if err := os.WriteFile(filepath.Join(r.ScopeRoot("project"), "notes", "mem_bad_file.md"), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := func(res *ListResult) map[string]bool {
		m := map[string]bool{}
		for _, e := range res.Entries {
			m[e.Memory.ID] = true
		}
		return m
	}
	res, err := List(r, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res); len(got) != 2 || !got[a] || !got[b] || res.Diagnostics.InvalidFileCount != 1 {
		t.Errorf("default scopes: %v, diagnostics %+v", got, res.Diagnostics)
	}
	for i := 1; i < len(res.Entries); i++ {
		if localeCompare(res.Entries[i-1].Memory.ID, res.Entries[i].Memory.ID) > 0 {
			t.Errorf("not sorted by id")
		}
	}
	res, _ = List(r, ListOptions{TargetHarness: "claude"})
	if got := ids(res); len(got) != 1 || !got[a] {
		t.Errorf("claude: %v", got)
	}
	res, _ = List(r, ListOptions{Scopes: []string{"user"}})
	if got := ids(res); len(got) != 1 || !got[u] {
		t.Errorf("user: %v", got)
	}
	if _, err := List(r, ListOptions{Scopes: []string{"nope"}}); err == nil {
		t.Error("bad scope accepted")
	}
	if _, err := List(r, ListOptions{TargetHarness: "Bad Slug"}); err == nil {
		t.Error("bad harness accepted")
	}
}
