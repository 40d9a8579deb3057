// Package testenv is the one home of the helpers tests share: the isolated
// Git environment every test that runs git (or reads Git configuration in
// process) works in, and small file and decoding helpers. It imports none
// of the project's packages, so that any package's tests can use it.
//
// The isolation is a private home directory and global configuration file,
// and no system configuration, so that the machine's Git set-up cannot
// change an outcome. It comes in three forms: an environment slice for
// subprocesses started from nothing (Environ) or from this process's
// environment (Inherit), key-value pairs for testscript's Setup (Apply),
// and tb.Setenv for code running in process (Setenv).
package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Git is an isolated Git environment.
type Git struct {
	Home         string // $HOME (and %USERPROFILE% on Windows)
	GlobalConfig string // $GIT_CONFIG_GLOBAL
}

// NewGit creates home and the global configuration file holding config
// (empty when config is ""), creating their parents. It returns an error
// rather than failing a test so that testscript's Setup can use it.
func NewGit(home, globalConfig, config string) (*Git, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(globalConfig), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(globalConfig, []byte(config), 0o644); err != nil {
		return nil, err
	}
	return &Git{Home: home, GlobalConfig: globalConfig}, nil
}

// TempGit is NewGit with an empty configuration in a new temporary
// directory: dir/home and dir/gitconfig.
func TempGit(tb testing.TB) *Git {
	tb.Helper()
	dir := tb.TempDir()
	g, err := NewGit(filepath.Join(dir, "home"), filepath.Join(dir, "gitconfig"), "")
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// Vars is the isolation itself: HOME, GIT_CONFIG_GLOBAL and
// GIT_CONFIG_NOSYSTEM=1, and on Windows USERPROFILE, which os.UserHomeDir
// reads there (the home-directory refusals), set to the same home.
func (g *Git) Vars() []string {
	vars := []string{"HOME=" + g.Home}
	if runtime.GOOS == "windows" {
		vars = append(vars, "USERPROFILE="+g.Home)
	}
	return append(vars, "GIT_CONFIG_GLOBAL="+g.GlobalConfig, "GIT_CONFIG_NOSYSTEM=1")
}

// Environ is a whole environment for a subprocess started from nothing:
// PATH and the system variables of PassThrough, then Vars.
func (g *Git) Environ() []string {
	return append(PassThrough(), g.Vars()...)
}

// Inherit is this process's environment without any GIT_* variable, HOME,
// USERPROFILE or XDG_CONFIG_HOME, then Vars: for subprocesses that need the
// rest of the environment.
func (g *Git) Inherit() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "GIT_"), name == "HOME", name == "XDG_CONFIG_HOME",
			runtime.GOOS == "windows" && strings.EqualFold(name, "USERPROFILE"):
			continue
		}
		env = append(env, kv)
	}
	return append(env, g.Vars()...)
}

// Setenv sets Vars in this process for the rest of the test (so such tests
// cannot be parallel), and unsets XDG_CONFIG_HOME and the GIT_* variables
// that would redirect git or an in-process reader (GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT,
// GIT_CEILING_DIRECTORIES) until the test ends. They are unset, not blank:
// a git subprocess inheriting GIT_INDEX_FILE="" would use "" as its index.
func (g *Git) Setenv(tb testing.TB) {
	tb.Helper()
	Apply(g.Vars(), tb.Setenv)
	for _, k := range []string{"XDG_CONFIG_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CEILING_DIRECTORIES"} {
		tb.Setenv(k, "") // registers the restoring of the old value
		if err := os.Unsetenv(k); err != nil {
			tb.Fatal(err)
		}
	}
}

// Apply calls setenv for each KEY=value of kvs: testscript's env.Setenv,
// or tb.Setenv.
func Apply(kvs []string, setenv func(key, value string)) {
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		setenv(k, v)
	}
}

// WinegitSpoolEnv names the spool directory of the wine git bridge
// (tools/winegit); it is set only when the tests run under wine.
const WinegitSpoolEnv = "ECHOES_WINEGIT_SPOOL"

// passThroughEnv lists the variables a subprocess started from nothing
// keeps from this process.
var passThroughEnv = []string{
	"PATH", WinegitSpoolEnv,
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "SYSTEMDRIVE", "PROGRAMDATA",
	"PROGRAMFILES", "PROGRAMFILES(X86)", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
}

// PassThrough returns PATH (when set and not empty) and the Windows system
// variables set in this process. Windows programs need a few system
// variables (Go's os/exec adds only SYSTEMROOT), and under wine git is the
// bridge of tools/winegit, which must reach its server
// (scripts/wine/run-test.sh names its spool); on any other machine those
// variables are unset and nothing but PATH is passed.
func PassThrough() []string {
	var env []string
	for _, k := range passThroughEnv {
		if v, ok := os.LookupEnv(k); ok && (k != "PATH" || v != "") {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// WriteFile writes content to path, creating its parent directories.
func WriteFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// MustDecode returns decode(s), failing the test when decode returns an
// error: MustDecode(t, pyjson.Decode, s). The decoder is passed in so that
// this package imports none of the project's, and the decoder's own
// package can use it too.
func MustDecode[T any](tb testing.TB, decode func(string) (T, error), s string) T {
	tb.Helper()
	v, err := decode(s)
	if err != nil {
		tb.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// MainWithStandIn is a TestMain whose test binary doubles as a stand-in
// git-echoes: copied under the name git-echoes (git-echoes.exe on Windows),
// it appends "ran: ARGS" to $FAKE_LOG and exits with $FAKE_EXIT, so the
// hooks and merge driver a test installs can be run by real git without
// building the real binary. Under any other name it runs the tests.
func MainWithStandIn(m *testing.M) {
	if name := strings.ToLower(filepath.Base(os.Args[0])); name == "git-echoes" || name == "git-echoes.exe" {
		if f, err := os.OpenFile(os.Getenv("FAKE_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "ran: %s\n", strings.Join(os.Args[1:], " "))
			f.Close()
		}
		code, _ := strconv.Atoi(os.Getenv("FAKE_EXIT"))
		os.Exit(code)
	}
	os.Exit(Run(m))
}

// HangBound is the hang detector of the tests that prove a call returns
// instead of blocking (a FIFO opened for reading, a lock that can never be
// taken): far beyond any real run, so it never measures speed.
const HangBound = 30 * time.Second

// ReturnsWithin runs f in a goroutine and fails the test, instead of hanging
// the suite, if f has not returned after HangBound.
func ReturnsWithin[T any](tb testing.TB, what string, f func() T) T {
	tb.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(HangBound):
		tb.Fatalf("%s still blocked after %s", what, HangBound)
		panic("unreachable")
	}
}

// TreeState hashes every file and records every path, mode and mtime below
// root, so a test can prove that nothing changed.
func TreeState(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fi.Mode().String() + " " + fi.ModTime().String()
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err == nil {
				sum := sha256.Sum256(data)
				desc += " " + hex.EncodeToString(sum[:])
			}
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
