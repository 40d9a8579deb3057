//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestPreCommitFramework (issue 17): the repository's .pre-commit-hooks.yaml
// loads in a real pre-commit, including the old ones users have (Debian
// 12's 3.0.4 refused `stages: [pre-commit]` with InvalidManifestError), and
// both the manifest's system hook (try-repo) and the documented `repo:
// local` / `language: system` hook (docs/ci.md) refuse a bad staged page
// and pass a good one.
func TestPreCommitFramework(t *testing.T) {
	if _, err := exec.LookPath("pre-commit"); err != nil {
		if os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
			t.Fatal("pre-commit is not on PATH (.ci/run installs Debian's pre-commit)")
		}
		t.Skip("pre-commit is not on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := buildEchoes(t, filepath.Join(tmp, "bin"))
	g, err := testenv.NewGit(filepath.Join(tmp, "home"), filepath.Join(tmp, "gitconfig"), "")
	if err != nil {
		t.Fatal(err)
	}
	env := append(g.Environ(), "PRE_COMMIT_HOME="+filepath.Join(tmp, "cache"),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	ws := filepath.Join(tmp, "project")
	run := func(wantOK bool, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		if (err == nil) != wantOK {
			t.Fatalf("%s %s: %v (want success %v)\n%s", name, strings.Join(args, " "), err, wantOK, out)
		}
		return string(out)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	run(true, "pre-commit", "validate-manifest", filepath.Join(root, ".pre-commit-hooks.yaml"))
	run(true, "git", "init", "-q")
	run(true, bin, "init")
	testenv.WriteFile(t, filepath.Join(ws, ".pre-commit-config.yaml"), `repos:
  - repo: local
    hooks:
      - id: git-echoes-check
        name: EchoesVault check (staged)
        entry: git-echoes check --staged
        language: system
        pass_filenames: false
        always_run: true
`)
	run(true, "pre-commit", "validate-config")
	good := "---\ntype: note\nstack: [go]\nstatus: active\nsummary: A good page.\n---\n\n# Good\n\nText.\n"
	testenv.WriteFile(t, filepath.Join(ws, "EchoesVault/pages/good.md"), good)
	run(true, "git", "add", "-A")
	run(true, "pre-commit", "run")
	run(true, "pre-commit", "try-repo", root, "git-echoes-check-system")

	testenv.WriteFile(t, filepath.Join(ws, "EchoesVault/pages/bad.md"), "no frontmatter\n")
	run(true, "git", "add", "-A")
	out := run(false, "pre-commit", "run")
	if !strings.Contains(out, "EchoesVault/pages/bad.md") {
		t.Errorf("pre-commit run did not name the bad page:\n%s", out)
	}
	out = run(false, "pre-commit", "try-repo", root, "git-echoes-check-system")
	if !strings.Contains(out, "EchoesVault/pages/bad.md") {
		t.Errorf("pre-commit try-repo did not name the bad page:\n%s", out)
	}
}
