package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Git run with Environ or Inherit reads the isolated global configuration
// and no system configuration; Setenv puts the same home in the process.
func TestGitIsolation(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("no git: %v", err)
	}
	dir := t.TempDir()
	g, err := NewGit(filepath.Join(dir, "h"), filepath.Join(dir, "cfg", "global"), "[user]\n\tname = Isolated\n")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "'user.name'='Leaked'")
	for name, env := range map[string][]string{"Environ": g.Environ(), "Inherit": g.Inherit()} {
		cmd := exec.Command("git", "config", "user.name")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "Isolated" {
			t.Errorf("%s: git config user.name = %q, %v", name, out, err)
		}
		if !contains(env, "GIT_CONFIG_NOSYSTEM=1") || !contains(env, "HOME="+g.Home) {
			t.Errorf("%s: %v", name, env)
		}
	}
	g.Setenv(t)
	if os.Getenv("HOME") != g.Home || os.Getenv("GIT_CONFIG_GLOBAL") != g.GlobalConfig || os.Getenv("GIT_CONFIG_PARAMETERS") != "" || hasEnv("GIT_CONFIG_PARAMETERS") {
		t.Errorf("Setenv: HOME=%q GIT_CONFIG_GLOBAL=%q GIT_CONFIG_PARAMETERS=%q", os.Getenv("HOME"), os.Getenv("GIT_CONFIG_GLOBAL"), os.Getenv("GIT_CONFIG_PARAMETERS"))
	}
	if home, err := os.UserHomeDir(); err != nil || home != g.Home {
		t.Errorf("os.UserHomeDir() = %q, %v on %s", home, err, runtime.GOOS)
	}
}

func hasEnv(k string) bool {
	_, ok := os.LookupEnv(k)
	return ok
}

func contains(env []string, kv string) bool {
	for _, e := range env {
		if e == kv {
			return true
		}
	}
	return false
}

func TestApply(t *testing.T) {
	got := map[string]string{}
	Apply([]string{"A=1", "B=x=y", "C="}, func(k, v string) { got[k] = v })
	if len(got) != 3 || got["A"] != "1" || got["B"] != "x=y" || got["C"] != "" {
		t.Errorf("Apply: %v", got)
	}
}
