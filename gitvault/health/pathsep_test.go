package health

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// osPath writes a slash path with this OS's separator, spelled out rather
// than through filepath, so the expectation does not share the code under
// test: on Windows the JSON must hold backslashes.
func osPath(p string) string {
	if runtime.GOOS == "windows" {
		return strings.ReplaceAll(p, "/", `\`)
	}
	return p
}

func getPath(t *testing.T, v pyjson.Value, keys ...string) pyjson.Value {
	t.Helper()
	for _, k := range keys {
		var ok bool
		if v, ok = v.Obj.Get(k); !ok {
			t.Fatalf("no key %q", k)
		}
	}
	return v
}

func strs(v pyjson.Value) []string {
	out := []string{}
	for _, e := range v.Arr {
		out = append(out, e.S)
	}
	return out
}

// Paths in JSON output follow echoes-conformance field by field: search's
// file (echoes-conformance §15.7), the adapter result lists (echoes-conformance §16.2), adapterConfiguration
// (echoes-conformance §18.3) and storage (echoes-conformance §18.6) use OS separators; conflictMarkers (echoes-conformance §18.3),
// missingStructure (echoes-conformance §18.3), health.git (echoes-conformance §20.2) and check's findings (its
// own JSON, read by CI annotations; tested in gitvault/gate) use "/". start's "### <path>" headings
// are the relative path as on disk (echoes-conformance §15.5). This test runs on Windows too.
func TestJSONPathSeparators(t *testing.T) {
	e, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := setup.Install(e, "init")
	if err != nil {
		t.Fatal(err)
	}
	root := e.WS.Root
	adapters := getPath(t, res, "agentAdapters")
	if got, want := strs(getPath(t, adapters, "skillsUpdated")), []string{osPath(".claude/skills/echoes-vault/SKILL.md"), osPath(".opencode/skills/echoes-vault/SKILL.md")}; !reflect.DeepEqual(got, want) {
		t.Errorf("skillsUpdated = %q, want %q", got, want)
	}
	if got := strs(getPath(t, adapters, "commandsUpdated")); len(got) != 4 || got[0] != osPath(".opencode/commands/echoes-init.md") {
		t.Errorf("commandsUpdated = %q", got)
	}

	// search: workspace-relative with OS separators.
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/auth.md"), page("Token flow.", "active"))
	sr, err := e.Search("token", 10)
	if err != nil {
		t.Fatal(err)
	}
	results := getPath(t, sr.JSON(), "results")
	if len(results.Arr) != 1 {
		t.Fatalf("results = %v", results)
	}
	if f := getPath(t, results.Arr[0], "file").S; f != osPath("EchoesVault/pages/auth.md") {
		t.Errorf("search file = %q, want %q", f, osPath("EchoesVault/pages/auth.md"))
	}

	// health: conflictMarkers and missingStructure with "/",
	// adapterConfiguration with OS separators.
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/daily/2026-01-01/x.md"), "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> o\n")
	testenv.WriteFile(t, filepath.Join(root, ".claude/skills/echoes-vault/SKILL.md"), "my own skill\n")
	testenv.WriteFile(t, filepath.Join(root, ".opencode/commands/echoes-end.md"), "my own command\n")
	h := Inspect(e).Health.JSON()
	if got := strs(getPath(t, h, "conflictMarkers")); !reflect.DeepEqual(got, []string{"daily/2026-01-01/x.md"}) {
		t.Errorf("conflictMarkers = %q", got)
	}
	if got, want := strs(getPath(t, h, "missingStructure")), []string{".claude/skills/echoes-vault/SKILL.md", ".opencode/commands/echoes-end.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("missingStructure = %q, want %q", got, want)
	}
	if got, want := strs(getPath(t, h, "adapterConfiguration")), []string{osPath(".claude/skills/echoes-vault/SKILL.md"), osPath(".opencode/commands/echoes-end.md")}; !reflect.DeepEqual(got, want) {
		t.Errorf("adapterConfiguration = %q, want %q", got, want)
	}

	// check's findings use "/" too: gate.TestCheckPathSeparators (gitvault/gate).

	// start: the heading is the path below daily/ as on disk.
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/daily/2026-01-01/x.md"), "resolved\n")
	out, err := e.Start(1)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n### " + osPath("2026-01-01/x.md") + "\n"; !strings.Contains(out, want) {
		t.Errorf("start output lacks %q:\n%s", want, out)
	}
}

// health.git lists workspace-relative paths with "/" on every OS (echoes-conformance §20.2).
func TestGitReadinessSlashes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	e, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(dir, "EchoesVault/pages/auth.md"), page("Token flow.", "active"))
	git := getPath(t, Inspect(e).Health.JSON(), "git")
	untracked := strs(getPath(t, git, "untrackedDurableFiles"))
	found := false
	for _, p := range untracked {
		if strings.Contains(p, `\`) {
			t.Errorf("untrackedDurableFiles entry with a backslash: %q", p)
		}
		found = found || p == "EchoesVault/pages/auth.md"
	}
	if !found {
		t.Errorf("untrackedDurableFiles = %q, want EchoesVault/pages/auth.md", untracked)
	}
}
