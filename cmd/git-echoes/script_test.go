package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

func TestMain(m *testing.M) {
	// Run as git-echoes (by name, see testscript.Main), this binary is the
	// real command; otherwise it runs the tests.
	testscript.Main(withBinDir{m}, map[string]func(){
		"git-echoes": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// withBinDir runs the tests and removes mcpBinDir afterwards, if a test
// made it (mcpBinary, testenv.SharedTempDir).
type withBinDir struct{ m *testing.M }

func (w withBinDir) Run() int {
	mcpBinDirOK = true
	return testenv.Run(w.m)
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

// scriptSetup gives each script the isolated Git environment of
// internal/testenv (home $WORK/.home, whose .gitconfig names the committer
// and the default branch), fixed commit dates and UTC. testscript starts
// each script from an empty environment: testenv.PassThrough carries over
// PATH, the few system variables Windows programs need and, under wine, the
// address of the git bridge's server.
func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	g, err := testenv.NewGit(home, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
	if err != nil {
		return err
	}
	// On Windows testscript sets USERPROFILE=/no-home, and os.UserHomeDir
	// reads USERPROFILE there: Environ makes it the same home, for the
	// commands that read HOME (memory roots, Git) and for those that ask
	// the OS (workspace and home-directory refusals).
	testenv.Apply(g.Environ(), env.Setenv)
	env.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
	env.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
	env.Setenv("TZ", "UTC")
	return nil
}
