package health

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/fswatch"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// inspectorRepo is an initialized vault in a Git repository whose global
// excludes file lies outside every watched tree.
func inspectorRepo(t *testing.T) (*gitvault.Engine, *gitrepotest.Sandbox, string) {
	t.Helper()
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(t.TempDir(), "repo"))
	e, err := gitvault.Open(gitvault.Options{Workspace: top})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	excl := filepath.Join(sb.Home, "excludes")
	testenv.WriteFile(t, excl, "*.tmp\n")
	sb.Git(top, "config", "core.excludesFile", excl)
	testenv.WriteFile(t, filepath.Join(e.WS.Pages, "one.md"), page("One", "active"))
	return e, sb, excl
}

func inspectionText(in *Inspection) string { return pyjson.Pretty(in.JSON()) }

func watched(t *testing.T) func(trees ...string) (uint64, bool) {
	t.Helper()
	w := fswatch.New(fswatch.Options{})
	t.Cleanup(func() { w.Close() })
	return func(trees ...string) (uint64, bool) {
		w.Watch(trees...)
		return w.Sync(trees...)
	}
}

// The Inspector answers from what it kept only while nothing it read has
// changed: a change in the vault (seen by the watcher), to the global
// excludes file, the index or the top-level .gitignore (outside the
// trees, seen by their stamps) is reflected by the very next call, which
// equals a fresh Inspect.
func TestInspectorSeesEveryChange(t *testing.T) {
	e, sb, excl := inspectorRepo(t)
	fresh := watched(t)
	if _, ok := fresh(Trees(e.WS)...); !ok {
		t.Skip("no change notification here (" + func() string { w := fswatch.New(fswatch.Options{}); defer w.Close(); return w.State().String() }() + ")")
	}
	x := NewInspector(e, fresh)
	// Older than the racy granule: stamps that prove something.
	time.Sleep(time.Duration(racyGranule) + 100*time.Millisecond)
	check := func(step string) string {
		t.Helper()
		got, want := inspectionText(x.Inspect()), inspectionText(Inspect(e))
		if got != want {
			t.Fatalf("%s: the Inspector says\n%s\nInspect says\n%s", step, got, want)
		}
		return got
	}
	check("first")
	check("second")
	before := check("third")
	if hits, _ := x.Stats(); hits == 0 {
		t.Fatal("an unchanged vault was inspected again on every call")
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"a page added in the vault", func() {
			testenv.WriteFile(t, filepath.Join(e.WS.Pages, "two.md"), page("Two", "deprecated"))
		}},
		{"a top-level .gitignore", func() {
			testenv.WriteFile(t, filepath.Join(e.WS.Root, ".gitignore"), "AGENTS.md\n")
		}},
		{"the global excludes file ignores pages", func() {
			testenv.WriteFile(t, excl, "*.tmp\n*.md\n")
		}},
		{"pages added to the index", func() {
			sb.Git(e.WS.Root, "add", "-f", "--", "EchoesVault/pages")
		}},
		{"AGENTS.md removed", func() {
			if err := os.Remove(e.WS.AgentsGuide); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, s := range steps {
		s.change()
		after := check(s.name)
		if after == before {
			t.Fatalf("%s: the scenario changed nothing the inspection shows", s.name)
		}
		before = after
	}
	// Settled again: answered from memory.
	time.Sleep(time.Duration(racyGranule) + 100*time.Millisecond)
	check("settled")
	h0, _ := x.Stats()
	check("settled, again")
	if h1, _ := x.Stats(); h1 != h0+1 {
		t.Fatalf("a settled vault was inspected again (hits %d -> %d)", h0, h1)
	}
}

// Without a proof (no watcher, or Sync says ok=false) every call computes.
func TestInspectorWithoutProofComputes(t *testing.T) {
	e, _, _ := inspectorRepo(t)
	for _, x := range []*Inspector{NewInspector(e, nil), NewInspector(e, func(...string) (uint64, bool) { return 7, false })} {
		for range 3 {
			if got, want := inspectionText(x.Inspect()), inspectionText(Inspect(e)); got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
		}
		if hits, computed := x.Stats(); hits != 0 || computed != 3 {
			t.Fatalf("hits %d, computed %d without a proof", hits, computed)
		}
	}
}
