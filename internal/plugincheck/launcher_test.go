//go:build !windows

// The launcher is a POSIX shell script: Claude Code and Codex run hook
// commands through a shell, and on Windows through Git Bash's sh, which
// these tests do not model.

package plugincheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
	"github.com/rogpeppe/go-internal/txtar"
)

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// binDir is a directory holding only a freshly built git-echoes: the PATH
// of a machine where the binary is installed.
func binDir(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtDir, buildErr = testenv.SharedTempDir("git-echoes-plugincheck-bin")
		if buildErr != nil {
			return
		}
		goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		out, err := exec.Command(goBin, "build", "-o", filepath.Join(builtDir, "git-echoes"),
			"github.com/git-echoes/git-echoes/cmd/git-echoes").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtDir
}

// TestMain removes the built git-echoes at the end.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// runner runs one plugin component the way its agent does.
type runner struct {
	name string
	// argv turns the plugin's absolute root into the command line.
	argv func(t *testing.T, root string) []string
	// env names the variable the agent sets to the plugin root, if any.
	env string
	// mcp: the component is an MCP server (speaks JSON-RPC on stdin).
	mcp bool
}

// The commands of the four components, read from the plugin's files: a
// hook is a shell command line run by `sh -c` with the plugin root in the
// environment; Claude Code substitutes ${CLAUDE_PLUGIN_ROOT} into an MCP
// server's arguments, Codex substitutes nothing.
func runners(t *testing.T) []runner {
	hookCmd := func(file string) string {
		g := hookGroups(t, filepath.Join(pluginDir, "hooks", file))[0]
		hs, _ := g["hooks"].([]any)
		h, _ := hs[0].(map[string]any)
		return str(h["command"])
	}
	mcpArgv := func(file string, substitute bool) func(*testing.T, string) []string {
		return func(t *testing.T, root string) []string {
			cmd, args, _ := mcpServer(t, filepath.Join(pluginDir, "mcp", file))
			argv := []string{cmd}
			for _, a := range args {
				if substitute {
					a = strings.ReplaceAll(a, "${CLAUDE_PLUGIN_ROOT}", root)
				}
				argv = append(argv, a)
			}
			return argv
		}
	}
	claudeHook, codexHook := hookCmd("claude.json"), hookCmd("codex.json")
	return []runner{
		{name: "claude-hook", env: "CLAUDE_PLUGIN_ROOT", argv: func(*testing.T, string) []string { return []string{"sh", "-c", claudeHook} }},
		{name: "codex-hook", env: "PLUGIN_ROOT", argv: func(*testing.T, string) []string { return []string{"sh", "-c", codexHook} }},
		{name: "claude-mcp", env: "CLAUDE_PLUGIN_ROOT", mcp: true, argv: mcpArgv("claude.json", true)},
		{name: "codex-mcp", mcp: true, argv: mcpArgv("codex.json", false)},
	}
}

// shDir is a directory holding only sh.
func shDir(t *testing.T, sh string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(sh, filepath.Join(dir, "sh")); err != nil {
		t.Fatal(err)
	}
	return dir
}

type result struct {
	code           int
	stdout, stderr string
}

// run starts the component in dir with PATH = path and the harness
// variables the agent would set, feeding stdin.
func (r runner) run(t *testing.T, dir, path, stdin string, extraEnv ...string) result {
	t.Helper()
	root, err := filepath.Abs(pluginDir)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("the launcher needs sh:", err)
	}
	argv := r.argv(t, root)
	cmd := exec.Command(sh, argv[1:]...)
	cmd.Dir = dir
	g := testenv.TempGit(t)
	// The commands call sh by name, as on every machine; nothing else of
	// the machine's PATH is visible, so no installed git-echoes either.
	env := []string{"PATH=" + path + string(os.PathListSeparator) + shDir(t, sh)}
	env = append(env, g.Vars()...)
	if r.env != "" {
		env = append(env, r.env+"="+root)
	}
	if r.mcp {
		_, _, menv := mcpServer(t, filepath.Join(pluginDir, "mcp", map[bool]string{true: "claude.json", false: "codex.json"}[strings.HasPrefix(r.name, "claude")]))
		for k, v := range menv {
			env = append(env, k+"="+v)
		}
	}
	cmd.Env = append(env, extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// snapshot records every entry under dir, .git included: type, mode, and
// the contents' (or link target's) SHA-256, so that two snapshots are equal
// only when nothing was created, removed or changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "link " + target
		case d.IsDir():
			m[rel] = fmt.Sprintf("dir %v", info.Mode())
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("file %v %x", info.Mode(), sha256.Sum256(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func assertUnchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed: %q -> %q", k, v, after[k])
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s created: %q", k, v)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	g := testenv.TempGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = g.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// Workspaces: a Git repository without a vault, one git-echoes initialised,
// one the reference engine initialised.
func noVault(t *testing.T) string {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	return dir
}

func ourVault(t *testing.T) string {
	dir := noVault(t)
	cmd := exec.Command(filepath.Join(binDir(t), "git-echoes"), "init")
	cmd.Dir = dir
	cmd.Env = testenv.TempGit(t).Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git-echoes init: %v\n%s", err, out)
	}
	return dir
}

func referenceVault(t *testing.T) string {
	dir := noVault(t)
	ar, err := txtar.ParseFile(filepath.Join("testdata", "reference_vault.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		testenv.WriteFile(t, filepath.Join(dir, filepath.FromSlash(f.Name)), string(f.Data))
	}
	return dir
}

const sessionStart = `{"hook_event_name": "SessionStart", "source": "startup"}`

// One MCP exchange: initialize, then the end of input (the server exits 0).
const mcpInit = `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "plugincheck", "version": "0"}}}` + "\n"

// assertMissing: the house error shape, one line on stderr, nothing on
// stdout, exit 2, and an install hint.
func assertMissing(t *testing.T, r result) {
	t.Helper()
	if r.code != 2 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", r.code, r.stdout)
	}
	line, rest, _ := strings.Cut(r.stderr, "\n")
	var e struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if rest != "" || json.Unmarshal([]byte(line), &e) != nil || e.OK == nil || *e.OK {
		t.Fatalf("stderr %q is not one line {\"ok\": false, \"error\": ...}", r.stderr)
	}
	if !strings.Contains(e.Error, "git-echoes is not installed") || !strings.Contains(e.Error, "https://github.com/git-echoes/git-echoes#install") {
		t.Errorf("error %q has no install hint", e.Error)
	}
}

// TestMissingBinary: without git-echoes on PATH, every component fails
// closed with the same one-line message and writes nothing, in each kind
// of workspace.
func TestMissingBinary(t *testing.T) {
	empty := t.TempDir()
	for _, r := range runners(t) {
		for name, mk := range map[string]func(*testing.T) string{"no-vault": noVault, "vault": ourVault, "reference": referenceVault} {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				dir := mk(t)
				before := snapshot(t, dir)
				in := sessionStart
				if r.mcp {
					in = mcpInit
				}
				assertMissing(t, r.run(t, dir, empty, in))
				// A GIT_ECHOES_BIN that is not an executable file is the same.
				assertMissing(t, r.run(t, dir, empty, in, "GIT_ECHOES_BIN="+filepath.Join(empty, "nope")))
				assertMissing(t, r.run(t, dir, empty, in, "GIT_ECHOES_BIN="+empty))
				assertUnchanged(t, dir, before)
			})
		}
	}
}

// TestSessionStartThroughPlugin: with the binary installed, the hooks give
// what `git echoes hook session-start` promises (README, SessionStart
// hook): nothing but the silent answer without a vault, the status card
// with one (ours or the reference engine's), never on stderr, exit 0, and
// no write.
func TestSessionStartThroughPlugin(t *testing.T) {
	path := binDir(t)
	for _, r := range runners(t) {
		if r.mcp {
			continue
		}
		t.Run(r.name+"/no-vault", func(t *testing.T) {
			dir := noVault(t)
			before := snapshot(t, dir)
			got := r.run(t, dir, path, sessionStart)
			if got.code != 0 || got.stderr != "" || got.stdout != "{\"continue\": true, \"suppressOutput\": true}\n" {
				t.Errorf("got %+v", got)
			}
			assertUnchanged(t, dir, before)
		})
		for name, mk := range map[string]func(*testing.T) string{"vault": ourVault, "reference": referenceVault} {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				dir := mk(t)
				before := snapshot(t, dir)
				got := r.run(t, dir, path, sessionStart)
				var resp struct {
					Continue bool `json:"continue"`
					Out      struct {
						Event   string `json:"hookEventName"`
						Context string `json:"additionalContext"`
					} `json:"hookSpecificOutput"`
				}
				if got.code != 0 || got.stderr != "" || json.Unmarshal([]byte(got.stdout), &resp) != nil {
					t.Fatalf("got %+v", got)
				}
				if !resp.Continue || resp.Out.Event != "SessionStart" || !strings.Contains(resp.Out.Context, "### EchoesVault") {
					t.Errorf("no status card: %s", got.stdout)
				}
				if strings.Contains(resp.Out.Context, "Status unavailable") {
					t.Errorf("the card was not read: %s", got.stdout)
				}
				assertUnchanged(t, dir, before)
			})
		}
	}
}

// TestSessionStartOff: GIT_ECHOES_SESSION_START=off silences the hooks
// (the README's way to turn that part off), with or without the binary,
// writing nothing.
func TestSessionStartOff(t *testing.T) {
	for _, r := range runners(t) {
		if r.mcp {
			continue
		}
		for name, path := range map[string]string{"installed": binDir(t), "missing": t.TempDir()} {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				dir := ourVault(t)
				before := snapshot(t, dir)
				got := r.run(t, dir, path, sessionStart, "GIT_ECHOES_SESSION_START=off")
				if got.code != 0 || got.stderr != "" || got.stdout != "{\"continue\": true, \"suppressOutput\": true}\n" {
					t.Errorf("got %+v", got)
				}
				assertUnchanged(t, dir, before)
			})
		}
	}
}

// TestMCPThroughPlugin: with the binary installed, each plugin's server
// answers initialize as git-echoes, in a repository with or without a
// vault, and writes nothing by starting.
func TestMCPThroughPlugin(t *testing.T) {
	path := binDir(t)
	for _, r := range runners(t) {
		if !r.mcp {
			continue
		}
		for name, mk := range map[string]func(*testing.T) string{"no-vault": noVault, "vault": ourVault, "reference": referenceVault} {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				dir := mk(t)
				before := snapshot(t, dir)
				got := r.run(t, dir, path, mcpInit)
				var resp struct {
					ID     int `json:"id"`
					Result struct {
						ServerInfo struct {
							Name string `json:"name"`
						} `json:"serverInfo"`
						Capabilities map[string]any `json:"capabilities"`
					} `json:"result"`
				}
				line, _, _ := strings.Cut(got.stdout, "\n")
				if got.code != 0 || json.Unmarshal([]byte(line), &resp) != nil || resp.ID != 1 {
					t.Fatalf("got %+v", got)
				}
				if resp.Result.ServerInfo.Name == "" || resp.Result.Capabilities["tools"] == nil {
					t.Errorf("initialize result without server name or tools: %s", line)
				}
				assertUnchanged(t, dir, before)
			})
		}
	}
}

// TestLauncherDelegates: the launcher hands the binary its arguments
// (spaces and all), standard input, and exit status unchanged.
func TestLauncherDelegates(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-git-echoes")
	testenv.WriteFile(t, fake, "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\necho\ncat\necho to-stderr >&2\nexit 7\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	launcher, err := filepath.Abs(filepath.Join(pluginDir, "launch.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", launcher, "a b", "", "--x=*")
	cmd.Dir = dir
	cmd.Env = append(testenv.PassThrough(), "GIT_ECHOES_BIN="+fake)
	cmd.Stdin = strings.NewReader("input\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 7 {
		t.Fatalf("exit %v, want 7", err)
	}
	if out.String() != "[a b][][--x=*]\ninput\n" || errb.String() != "to-stderr\n" {
		t.Errorf("stdout %q stderr %q", out.String(), errb.String())
	}
}

// TestCodexInlineLauncher: Codex substitutes no plugin root into MCP server
// arguments, so its server entry carries the launcher's logic inline; it
// must stay the launcher's, message for message.
func TestCodexInlineLauncher(t *testing.T) {
	launcher, err := os.ReadFile(filepath.Join(pluginDir, "launch.sh"))
	if err != nil {
		t.Fatal(err)
	}
	_, args, _ := mcpServer(t, filepath.Join(pluginDir, "mcp", "codex.json"))
	if len(args) != 2 || args[0] != "-c" {
		t.Fatalf("codex MCP args %v, want [-c SCRIPT]", args)
	}
	for _, line := range []string{
		`bin=${GIT_ECHOES_BIN:-}`,
		`if [ -z "$bin" ] || [ -d "$bin" ] || [ ! -x "$bin" ]; then`,
		`exit 2`,
	} {
		if !strings.Contains(string(launcher), line) || !strings.Contains(args[1], line) {
			t.Errorf("launch.sh and the Codex inline launcher must both hold %q", line)
		}
	}
	var msg string
	for _, l := range strings.Split(string(launcher), "\n") {
		if strings.Contains(l, `"ok": false`) {
			msg = strings.TrimSpace(l)
		}
	}
	if msg == "" || !strings.Contains(args[1], strings.TrimSuffix(msg, " >&2")) {
		t.Errorf("the Codex inline launcher's message differs from launch.sh's %q", msg)
	}
}
