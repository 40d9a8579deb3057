package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Run as git-echoes (by name, see testscript.Main), this binary is the
	// real command; otherwise it runs the tests.
	testscript.Main(withBinDir{m}, map[string]func(){
		"git-echoes": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// withBinDir runs the tests with mcpBinDir made, and removes it afterwards.
type withBinDir struct{ m *testing.M }

func (w withBinDir) Run() int {
	dir, err := os.MkdirTemp("", "git-echoes-mcp-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		return 1
	}
	mcpBinDir = dir
	code := w.m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
	}
	return code
}

// TestScripts runs every testdata/script/*.txtar against the real binary.
// Each script gets a private HOME and Git configuration so that the machine's
// Git set-up cannot change the outcome.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: false,
		Setup:               scriptSetup,
		Cmds:                scriptCommands(),
		Condition:           scriptCondition,
	})
}

// passThroughEnv lists the variables a script inherits from the test process.
var passThroughEnv = []string{
	winegitAddrEnv,
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "SYSTEMDRIVE", "PROGRAMDATA",
	"PROGRAMFILES", "PROGRAMFILES(X86)", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
}

// winegitAddrEnv names the address of the wine git bridge's server
// (tools/winegit); it is set only when the tests run under wine.
const winegitAddrEnv = "ECHOES_WINEGIT_ADDR"

func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	if runtime.GOOS == "windows" {
		// testscript sets USERPROFILE=/no-home on Windows, and os.UserHomeDir
		// reads USERPROFILE there: make the home directory one and the same
		// for the commands that read HOME (memory roots, Git) and for those
		// that ask the OS (workspace and home-directory refusals).
		env.Setenv("USERPROFILE", home)
	}
	env.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
	env.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
	env.Setenv("TZ", "UTC")
	if p := os.Getenv("PATH"); p != "" {
		env.Setenv("PATH", p)
	}
	// testscript starts each script from an empty environment. Windows
	// programs need a few system variables that it does not carry over
	// (Go's os/exec adds only SYSTEMROOT): keep the ones set here. And
	// under wine, git is the bridge of tools/winegit, which must reach its
	// server (scripts/wine/run-test.sh sets the address); on any other
	// machine the variable is unset and nothing is passed.
	for _, k := range passThroughEnv {
		if v, ok := os.LookupEnv(k); ok {
			env.Setenv(k, v)
		}
	}
	return nil
}
