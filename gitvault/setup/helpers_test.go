package setup

import (
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// initVault creates an initialized vault in a fresh directory outside Git.
func initVault(t testing.TB) *gitvault.Engine {
	t.Helper()
	e, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	return e
}

// openWorkspace is the workspace rooted at root, as a command opens it.
func openWorkspace(t testing.TB, root string) *gitvault.Workspace {
	t.Helper()
	e, err := gitvault.Open(gitvault.Options{Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	return e.WS
}

// getPath follows keys through nested JSON objects.
func getPath(t *testing.T, v pyjson.Value, keys ...string) pyjson.Value {
	t.Helper()
	for _, k := range keys {
		next, ok := v.Obj.Get(k)
		if !ok {
			t.Fatalf("no key %q", k)
		}
		v = next
	}
	return v
}
