package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/testenv"
	"github.com/git-echoes/git-echoes/mcpserver"
)

// The tests of tool results, schemas and bounds run the server of
// mcpserver in process, over the SDK's in-memory transports
// (serve). Those about what only the process shows (flags, environment
// variables, startup refusals and exit statuses, the process's cwd, serial
// order over real stdio) run this binary as git-echoes over stdio
// (connect), driven by the SDK's client exactly as Claude Code, Codex or
// OpenCode would.

var (
	mcpBinOnce sync.Once
	mcpBin     string
	mcpBinErr  error
)

// mcpBinary returns the git-echoes the MCP tests start: this test binary
// under the name git-echoes (git-echoes.exe on Windows). TestMain dispatches
// on that name (testscript.Main) and runs the real main's run, as the
// scripts' git-echoes does, so no Go toolchain is needed where the tests run
// (a Windows test binary under wine has none) and nothing is built twice.
// The copy is made once and removed when the tests end (TestMain).
func mcpBinary(t *testing.T) string {
	t.Helper()
	mcpBinOnce.Do(func() {
		if !mcpBinDirOK {
			mcpBinErr = errors.New("no directory for the test's git-echoes (TestMain did not run)")
			return
		}
		mcpBinDir, mcpBinErr = testenv.SharedTempDir("git-echoes-mcp-bin")
		if mcpBinErr == nil {
			mcpBin, mcpBinErr = installSelfAs(mcpBinDir, "git-echoes")
		}
	})
	if mcpBinErr != nil {
		t.Fatal(mcpBinErr)
	}
	return mcpBin
}

// mcpBinDir holds the MCP tests' git-echoes. mcpBinary creates it on first
// use, not TestMain: the helper processes the crash and watch tests start
// (this binary again, killed by a signal) never need it, and a directory
// made before their m.Run would outlive them. TestMain removes it.
// mcpBinDirOK says TestMain's Run is the caller, so the removal will run.
var (
	mcpBinDir   string
	mcpBinDirOK bool
)

// installSelfAs places this test binary in dir under name (plus .exe on
// Windows): hard-linked when the file system allows it, else copied. On
// Windows it is always copied: a link would be the running test binary's
// own file, which cannot be deleted while it runs.
func installSelfAs(dir, name string) (string, error) {
	if dir == "" {
		return "", errors.New("no directory for the test's git-echoes (TestMain did not run)")
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		dst += ".exe"
	}
	if runtime.GOOS != "windows" && os.Link(self, dst) == nil {
		return dst, nil
	}
	src, err := os.Open(self)
	if err != nil {
		return "", err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return dst, nil
}

// mcpEnv is a private, minimal environment (internal/testenv): a temporary
// HOME (the user memory scope lives there) and no machine Git configuration.
type mcpEnv struct {
	home, repo string
	git        *testenv.Git
	vars       []string
}

func newMCPEnv(t *testing.T) *mcpEnv {
	t.Helper()
	root := t.TempDir()
	e := &mcpEnv{home: filepath.Join(root, "home"), repo: filepath.Join(root, "home", "project")}
	if err := os.MkdirAll(e.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	g, err := testenv.NewGit(e.home, filepath.Join(root, "gitconfig"), "")
	if err != nil {
		t.Fatal(err)
	}
	e.git, e.vars = g, g.Environ()
	// Last: TestMCPStartupRefusals drops it by slicing.
	e.vars = append(e.vars, "ECC_MEMORY_HARNESS=claude")
	gitInit := exec.Command("git", "init", "-q", e.repo)
	gitInit.Env = e.vars
	if out, err := gitInit.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cmd := exec.Command(mcpBinary(t), "init")
	cmd.Dir, cmd.Env = e.repo, e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git echoes init: %v\n%s", err, out)
	}
	return e
}

// with returns the environment with extra or replaced variables.
func (e *mcpEnv) with(kv ...string) []string {
	out := []string{}
	for _, v := range e.vars {
		name := v[:strings.IndexByte(v, '=')+1]
		replaced := false
		for _, n := range kv {
			replaced = replaced || strings.HasPrefix(n, name)
		}
		if !replaced {
			out = append(out, v)
		}
	}
	return append(out, kv...)
}

// connect starts `git echoes mcp args...` in dir and returns a client session.
func connect(t *testing.T, dir string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(mcpBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	client := mcp.NewClient(&mcp.Implementation{Name: "git-echoes-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// serveOpts is the command line and environment of a server run in
// process: what runMCP would resolve them to is built by serve.
type serveOpts struct {
	harness       string   // ECC_MEMORY_HARNESS ("" is "claude", as in e.vars)
	memory, vault bool     // --memory, --vault (neither: both sets)
	maxOutput     int      // --max-output (0: not given)
	env           []string // further variables, as for e.with
}

// serve starts, in this process, the server `git echoes mcp` would start in
// e.repo with opts (runMCP: engine opened on the workspace with the
// harness as its agent, memory roots from the workspace directory, output
// bounds from --max-output), wrapped in mcpserver.SerialTransport as runMCP
// wraps stdio, and connects a client over mcp.NewInMemoryTransports.
func (e *mcpEnv) serve(t *testing.T, opts serveOpts) *mcp.ClientSession {
	t.Helper()
	e.git.Setenv(t) // in-process Git configuration readers
	harness := opts.harness
	if harness == "" {
		harness = "claude"
	}
	vars := e.with(append([]string{"ECC_MEMORY_HARNESS=" + harness}, opts.env...)...)
	getenv := func(k string) string {
		v := ""
		for _, kv := range vars {
			if name, val, _ := strings.Cut(kv, "="); name == k {
				v = val
			}
		}
		return v
	}
	cfg := mcpserver.Config{
		Memory:         opts.memory || !opts.vault,
		Harness:        harness,
		AllowUserScope: getenv("ECC_MEMORY_ALLOW_USER_SCOPE") == "1",
		MemoryCwd:      e.repo,
		Getenv:         getenv,
		MaxOutput:      mcpserver.DefaultMaxOutput,
		Version:        gitvault.EngineVersion,
	}
	if opts.maxOutput != 0 {
		cfg.MaxOutput, cfg.MemoryMaxOutput = opts.maxOutput, opts.maxOutput
	}
	agent, err := gitvault.NormalizeAgent(harness)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agent = agent
	if opts.vault || !opts.memory {
		if cfg.Engine, err = gitvault.Open(gitvault.Options{Workspace: e.repo, Agent: &agent}); err != nil {
			t.Fatal(err)
		}
	}
	server, err := mcpserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ss, err := server.Connect(context.Background(), mcpserver.SerialTransport{Transport: serverSide}, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "git-echoes-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call runs a tool; err is a JSON-RPC error, res.IsError a tool error.
func call(t *testing.T, s *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// ok calls a tool that must succeed and returns its text.
func ok(t *testing.T, s *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := call(t, s, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, resultText(res))
	}
	return resultText(res)
}

// toolErr calls a tool that must fail with a tool error containing want.
func toolErr(t *testing.T, s *mcp.ClientSession, name string, args any, want string) string {
	t.Helper()
	res, err := call(t, s, name, args)
	if err != nil {
		t.Fatalf("%s: protocol error %v, want a tool error", name, err)
	}
	if !res.IsError || !strings.Contains(resultText(res), want) {
		t.Fatalf("%s: got isError=%v %s, want a tool error with %q", name, res.IsError, resultText(res), want)
	}
	return resultText(res)
}

// rpcErr calls a tool that must fail with a JSON-RPC error containing want.
func rpcErr(t *testing.T, s *mcp.ClientSession, name string, args any, want string) {
	t.Helper()
	res, err := call(t, s, name, args)
	if err == nil {
		t.Fatalf("%s: got result %s, want JSON-RPC error %q", name, resultText(res), want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: got %v, want %q", name, err, want)
	}
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func decodeJSON(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	return m
}

func TestMCPToolsList(t *testing.T) {
	e := newMCPEnv(t)
	want := map[string]string{ // name: readOnly/destructive
		"memory_save": "write", "memory_search": "ro", "memory_read": "ro", "memory_doctor": "ro",
		"echoes_status": "ro", "echoes_search": "ro", "echoes_read_page": "ro", "echoes_find": "ro",
		"echoes_upsert_page": "destructive", "echoes_append": "write", "echoes_start": "write", "echoes_end": "destructive",
		"echoes_diff": "ro", "echoes_log": "ro", "echoes_stale": "ro",
	}
	s := e.serve(t, serveOpts{})
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(want) {
		t.Errorf("got %d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		kind, known := want[tool.Name]
		a := tool.Annotations
		if !known || a == nil {
			t.Errorf("unexpected tool or no annotations: %s", tool.Name)
			continue
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be false", tool.Name)
		}
		if a.ReadOnlyHint != (kind == "ro") {
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		}
		if kind != "ro" && (a.DestructiveHint == nil || *a.DestructiveHint != (kind == "destructive")) {
			t.Errorf("%s: destructiveHint %v, want %v", tool.Name, a.DestructiveHint, kind == "destructive")
		}
		if strings.Contains(tool.Name, "review") || strings.Contains(tool.Name, "promot") {
			t.Errorf("%s: no review or promotion tool may exist", tool.Name)
		}
	}
	end := findTool(res.Tools, "echoes_end")
	if end == nil || !strings.Contains(end.Description, "ONLY after the user explicitly asked") {
		t.Errorf("echoes_end must say it needs an explicit user request")
	}
	// The memory tool schemas are ecc-conformance §17.4 verbatim.
	save, _ := json.Marshal(findTool(res.Tools, "memory_save").InputSchema)
	schema := decodeJSON(t, string(save))
	if schema["additionalProperties"] != false || fmt.Sprint(schema["required"]) != "[title body]" ||
		len(schema["properties"].(map[string]any)) != 7 {
		t.Errorf("memory_save schema: %s", save)
	}
}

// TestMCPFlagsSelectTools: --memory and --vault serve only their set (the
// command line is the process's).
func TestMCPFlagsSelectTools(t *testing.T) {
	e := newMCPEnv(t)
	for flag, names := range map[string][]string{
		"--memory": {"memory_doctor", "memory_read", "memory_save", "memory_search"},
		"--vault":  {"echoes_append", "echoes_diff", "echoes_end", "echoes_find", "echoes_log", "echoes_read_page", "echoes_search", "echoes_stale", "echoes_start", "echoes_status", "echoes_upsert_page"},
	} {
		res, err := connect(t, e.repo, e.vars, flag).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tool := range res.Tools {
			got = append(got, tool.Name)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(names, ",") {
			t.Errorf("%s: %v", flag, got)
		}
	}
}

func findTool(tools []*mcp.Tool, name string) *mcp.Tool {
	for _, t := range tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

var memIDRe = regexp.MustCompile(`"id": "(mem_[a-z0-9_-]+)"`)

func TestMCPMemoryTools(t *testing.T) {
	e := newMCPEnv(t)
	s := e.serve(t, serveOpts{memory: true})

	saved := ok(t, s, "memory_save", map[string]any{"title": "Token rotation", "body": "The rotation tests pass.", "tags": []string{"auth"}})
	m := decodeJSON(t, saved)["memory"].(map[string]any)
	if m["sourceHarness"] != "claude" || m["trust"] != "unreviewed" || m["body"] != nil {
		t.Errorf("save result: %s", saved)
	}
	if strings.Contains(saved, e.repo) {
		t.Errorf("save result leaks a path: %s", saved)
	}
	id := m["id"].(string)

	found := ok(t, s, "memory_search", map[string]any{"query": "rotation"})
	if !strings.Contains(found, id) {
		t.Errorf("search: %s", found)
	}
	read := decodeJSON(t, ok(t, s, "memory_read", map[string]any{"id": id}))
	if read["memory"].(map[string]any)["body"] != "The rotation tests pass." {
		t.Errorf("read: %v", read)
	}
	doctor := decodeJSON(t, ok(t, s, "memory_doctor", map[string]any{}))
	if doctor["ok"] != true || doctor["memoryCount"] != 1.0 {
		t.Errorf("doctor: %v", doctor)
	}

	// Identity: the server's harness signs writes; clients cannot choose it.
	// The schemas forbid the keys, with the ecc-conformance §17.5 message.
	rpcErr(t, s, "memory_save", map[string]any{"title": "t", "body": "b", "source_harness": "codex"}, "Invalid arguments for memory_save: / additionalProperties.")
	rpcErr(t, s, "memory_search", map[string]any{"targetHarness": "codex"}, "Invalid arguments for memory_search: / additionalProperties.")
	// A memory for codex only is invisible to another harness.
	codexOnly := ok(t, s, "memory_save", map[string]any{"title": "For codex", "body": "private", "targetHarnesses": []string{"codex"}})
	codexID := memIDRe.FindStringSubmatch(codexOnly)[1]
	hermes := e.serve(t, serveOpts{harness: "hermes", memory: true})
	toolErr(t, hermes, "memory_read", map[string]any{"id": codexID}, `"MEMORY_READ_FAILED"`)
	if txt := ok(t, hermes, "memory_search", map[string]any{"query": "codex"}); strings.Contains(txt, codexID) {
		t.Errorf("another harness found a memory not targeted at it: %s", txt)
	}

	// User scope: disabled without the operator's opt-in, and never implied.
	rpcErr(t, s, "memory_save", map[string]any{"title": "t", "body": "b", "scope": "user"}, "The user memory scope is disabled for this MCP server.")
	rpcErr(t, s, "memory_search", map[string]any{"scopes": []string{"user"}}, "user memory scope is disabled")
	rpcErr(t, s, "memory_read", map[string]any{"id": id, "scope": "user"}, "user memory scope is disabled")
	rpcErr(t, s, "memory_doctor", map[string]any{"scopes": []string{"project", "user"}}, "user memory scope is disabled")
	user := e.serve(t, serveOpts{memory: true, env: []string{"ECC_MEMORY_ALLOW_USER_SCOPE=1"}})
	userSaved := ok(t, user, "memory_save", map[string]any{"title": "Mine", "body": "user note", "scope": "user"})
	userID := memIDRe.FindStringSubmatch(userSaved)[1]
	if _, err := os.Stat(filepath.Join(e.home, ".ecc", "memory", "notes", userID+".md")); err != nil {
		t.Errorf("user memory not in ~/.ecc/memory: %v", err)
	}
	if txt := ok(t, user, "memory_search", map[string]any{"query": "user note"}); strings.Contains(txt, userID) {
		t.Errorf("user scope searched without an explicit request: %s", txt)
	}
	if txt := ok(t, user, "memory_search", map[string]any{"query": "user note", "scopes": []string{"user"}}); !strings.Contains(txt, userID) {
		t.Errorf("explicit user search: %s", txt)
	}

	// Invalid arguments are JSON-RPC -32602 with ecc-conformance §17.5 problem lists.
	rpcErr(t, s, "memory_save", map[string]any{"title": "t"}, "Invalid arguments for memory_save: / required.")
	rpcErr(t, s, "memory_search", map[string]any{"limit": "ten"}, "Invalid arguments for memory_search: /limit type.")
	rpcErr(t, s, "memory_read", map[string]any{"id": "nope"}, "Invalid arguments for memory_read: /id pattern.")
	rpcErr(t, s, "memory_doctor", map[string]any{"scopes": "project"}, "Invalid arguments for memory_doctor: /scopes type.")

	// Core failures are tool errors without paths or secret values.
	secret := "AKIA" + "ABCDEFGHIJKLMNOP"
	msg := toolErr(t, s, "memory_save", map[string]any{"title": "keys", "body": "key " + secret}, `"MEMORY_WRITE_REJECTED"`)
	if strings.Contains(msg, secret) || !strings.Contains(msg, "suspected secret") {
		t.Errorf("secret error: %s", msg)
	}
	toolErr(t, s, "memory_read", map[string]any{"id": "mem_missing"}, `"MEMORY_READ_FAILED"`)

	// An invalid document makes every read unprovable: MEMORY_READ_INCOMPLETE
	// and no memory content at all.
	bad := filepath.Join(e.repo, ".ecc", "memory", "project", "notes", "mem_broken.md")
	if err := os.WriteFile(bad, []byte("not a memory\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	msg = toolErr(t, s, "memory_read", map[string]any{"id": id}, `"MEMORY_READ_INCOMPLETE"`)
	if strings.Contains(msg, "rotation") || strings.Contains(msg, e.repo) {
		t.Errorf("incomplete read leaked memory or paths: %s", msg)
	}
	if txt := ok(t, s, "memory_search", map[string]any{"query": "rotation"}); strings.Contains(txt, "mem_broken") {
		t.Errorf("search diagnostics must not list file paths: %s", txt)
	}
}

// echoesPage is a minimal valid page.
func echoesPage(summary, body string) string {
	return "---\ntype: concept\nstack: go\nstatus: active\nsummary: " + summary + "\n---\n\n" + body
}

func TestMCPVaultTools(t *testing.T) {
	e := newMCPEnv(t)
	s := e.serve(t, serveOpts{vault: true})

	status := decodeJSON(t, ok(t, s, "echoes_status", map[string]any{}))
	if len(status) == 0 {
		t.Errorf("status: %v", status)
	}
	if card := ok(t, s, "echoes_status", map[string]any{"format": "card"}); !strings.Contains(card, "EchoesVault") {
		t.Errorf("card: %s", card)
	}
	if start := ok(t, s, "echoes_start", map[string]any{"recent": 2}); !strings.HasPrefix(start, "# EchoesVault session context") {
		t.Errorf("start: %s", start)
	}

	created := decodeJSON(t, ok(t, s, "echoes_upsert_page", map[string]any{"filename": "auth-flow", "content": echoesPage("How login works", "Tokens rotate hourly.\n")}))
	if created["action"] != "created" {
		t.Errorf("upsert: %v", created)
	}
	read := decodeJSON(t, ok(t, s, "echoes_read_page", map[string]any{"filename": "auth-flow.md"}))
	sha, _ := read["sha256"].(string)
	if sha != created["sha256"] || !strings.Contains(read["content"].(string), "Tokens rotate hourly.") || read["truncated"] != false {
		t.Errorf("read: %v", read)
	}
	hits := ok(t, s, "echoes_search", map[string]any{"query": "ROTATE"})
	if !strings.Contains(hits, "auth-flow.md") {
		t.Errorf("search: %s", hits)
	}

	// Replacing a page needs the hash of what was read, and a fresh one.
	update := map[string]any{"filename": "auth-flow", "content": echoesPage("How login works", "Tokens rotate daily.\n")}
	toolErr(t, s, "echoes_upsert_page", update, "requires expectedSha256")
	update["expectedSha256"] = strings.Repeat("0", 64)
	toolErr(t, s, "echoes_upsert_page", update, "Concurrent change detected")
	update["expectedSha256"] = sha
	if got := decodeJSON(t, ok(t, s, "echoes_upsert_page", update)); got["action"] != "updated" {
		t.Errorf("update: %v", got)
	}
	toolErr(t, s, "echoes_read_page", map[string]any{"filename": "missing"}, "Page does not exist")
	// A symlinked page could expose any file of the user's; it is refused.
	t.Run("symlinked page", func(t *testing.T) {
		outside := filepath.Join(e.home, "private.md")
		if err := os.WriteFile(outside, []byte(echoesPage("private", "do not read\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		symlinkOrSkip(t, outside, filepath.Join(e.repo, "EchoesVault", "pages", "link.md"))
		if msg := toolErr(t, s, "echoes_read_page", map[string]any{"filename": "link"}, "symbolic-link"); strings.Contains(msg, "do not read") {
			t.Errorf("symlink target leaked: %s", msg)
		}
		if err := os.Remove(filepath.Join(e.repo, "EchoesVault", "pages", "link.md")); err != nil {
			t.Fatal(err)
		}
	})

	// Writer identity comes from the server (ECC_MEMORY_HARNESS here).
	app := decodeJSON(t, ok(t, s, "echoes_append", map[string]any{"entry": "Looked at token rotation."}))
	if log, _ := app["dailyLog"].(string); !strings.Contains(filepath.Base(log), "-scratchpad-claude") {
		t.Errorf("append: %v", app)
	}
	rpcErr(t, s, "echoes_append", map[string]any{"entry": "x", "agent": "codex"}, "Identity violation for echoes_append")
	rpcErr(t, s, "echoes_append", map[string]any{}, "Invalid arguments for echoes_append: / required.")
	rpcErr(t, s, "echoes_search", map[string]any{"query": 5}, "Invalid arguments for echoes_search: /query type.")

	// Finalisation only with the explicit confirmation.
	end := map[string]any{"dailySummary": "Rotation reviewed.", "pages": []any{}}
	rpcErr(t, s, "echoes_end", end, "Invalid arguments for echoes_end: / required.")
	end["confirmExplicitUserEnd"] = false
	toolErr(t, s, "echoes_end", end, "echoes_end refused")
	daily := filepath.Join(e.repo, "EchoesVault", "daily")
	before := countFiles(t, daily)
	end["confirmExplicitUserEnd"] = "yes"
	rpcErr(t, s, "echoes_end", end, "/confirmExplicitUserEnd type")
	if countFiles(t, daily) != before {
		t.Fatal("a refused end wrote a daily entry")
	}
	end["confirmExplicitUserEnd"] = true
	done := decodeJSON(t, ok(t, s, "echoes_end", end))
	if done["ok"] != true || countFiles(t, daily) != before+1 {
		t.Errorf("end: %v", done)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return n
}

func TestMCPOutputBounds(t *testing.T) {
	e := newMCPEnv(t)
	s := e.serve(t, serveOpts{maxOutput: 600})
	var body strings.Builder
	for i := 1; i <= 80; i++ {
		fmt.Fprintf(&body, "rotation line %02d\n", i)
	}
	big := e.serve(t, serveOpts{})
	ok(t, big, "echoes_upsert_page", map[string]any{"filename": "long", "content": echoesPage("A long page", body.String())})

	first := decodeJSON(t, ok(t, s, "echoes_read_page", map[string]any{"filename": "long"}))
	next, _ := first["nextStartLine"].(float64)
	if first["truncated"] != true || next < 2 {
		t.Fatalf("read not truncated: %v", first)
	}
	rest := decodeJSON(t, ok(t, s, "echoes_read_page", map[string]any{"filename": "long", "startLine": next}))
	full := echoesPage("A long page", body.String())
	if rest["startLine"] != next || !strings.HasPrefix(full, first["content"].(string)+rest["content"].(string)) {
		t.Errorf("continuation does not resume where the first read stopped: %v", rest)
	}
	if rest["sha256"] != first["sha256"] {
		t.Error("the hash must be the whole page's on every slice")
	}

	hits := decodeJSON(t, ok(t, s, "echoes_search", map[string]any{"query": "rotation line"}))
	if hits["outputTruncated"] != true || hits["omittedResults"].(float64) < 1 {
		t.Errorf("search not bounded: %v", hits)
	}
	if start := ok(t, s, "echoes_start", map[string]any{}); len([]rune(start)) > 600 {
		t.Errorf("start over the limit: %d", len([]rune(start)))
	}

	for i := 0; i < 12; i++ {
		ok(t, big, "memory_save", map[string]any{"title": fmt.Sprintf("Rotation note %d", i), "body": "rotation details"})
	}
	found := decodeJSON(t, ok(t, s, "memory_search", map[string]any{"query": "rotation"}))
	if found["outputTruncated"] != true || found["diagnostics"] == nil {
		t.Errorf("memory search not bounded: %v", found)
	}
	long := ok(t, big, "memory_save", map[string]any{"title": "Big", "body": strings.Repeat("word ", 400)})
	rpcErr(t, s, "memory_read", map[string]any{"id": memIDRe.FindStringSubmatch(long)[1]}, "exceeds the bounded output limit")
}

// TestMCPEnvironment: the process reads its identity and the user-scope
// opt-in from the environment: ECC_MEMORY_HARNESS signs memory writes and
// is the EchoesVault writer, ECC_MEMORY_ALLOW_USER_SCOPE=1 enables explicit
// user-scope requests (stored under $HOME/.ecc/memory), and without it the
// user scope is disabled.
func TestMCPEnvironment(t *testing.T) {
	e := newMCPEnv(t)
	s := connect(t, e.repo, e.with("ECC_MEMORY_HARNESS=hermes", "ECC_MEMORY_ALLOW_USER_SCOPE=1"))
	saved := decodeJSON(t, ok(t, s, "memory_save", map[string]any{"title": "Signed", "body": "by the harness"}))
	if m := saved["memory"].(map[string]any); m["sourceHarness"] != "hermes" {
		t.Errorf("save signed by %v, want hermes: %v", m["sourceHarness"], saved)
	}
	app := decodeJSON(t, ok(t, s, "echoes_append", map[string]any{"entry": "Looked at signing."}))
	if log, _ := app["dailyLog"].(string); !strings.Contains(filepath.Base(log), "-scratchpad-hermes") {
		t.Errorf("append: %v", app)
	}
	userID := memIDRe.FindStringSubmatch(ok(t, s, "memory_save", map[string]any{"title": "Mine", "body": "user note", "scope": "user"}))[1]
	if _, err := os.Stat(filepath.Join(e.home, ".ecc", "memory", "notes", userID+".md")); err != nil {
		t.Errorf("user memory not in ~/.ecc/memory: %v", err)
	}
	rpcErr(t, connect(t, e.repo, e.vars, "--memory"), "memory_save", map[string]any{"title": "t", "body": "b", "scope": "user"}, "The user memory scope is disabled for this MCP server.")
}

// TestMCPStartupRefusals: problems an operator must fix stop the server
// before the session, with exit status 2 and one clear line on stderr.
func TestMCPStartupRefusals(t *testing.T) {
	e := newMCPEnv(t)
	run := func(dir string, env []string, args ...string) (int, string) {
		cmd := exec.Command(mcpBinary(t), append([]string{"mcp"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	}
	for _, env := range [][]string{e.with("ECC_MEMORY_HARNESS="), e.with("ECC_MEMORY_HARNESS=Claude"), e.with()[:len(e.vars)-1]} {
		code, stderr := run(e.repo, env)
		if code != 2 || !strings.Contains(stderr, "ECC_MEMORY_HARNESS must identify this MCP server") {
			t.Errorf("missing/invalid harness: exit %d, %q", code, stderr)
		}
	}
	code, stderr := run(e.home, e.vars)
	if code != 2 || !strings.Contains(stderr, "home directory") {
		t.Errorf("home workspace: exit %d, %q", code, stderr)
	}
	if code, stderr := run(e.repo, e.vars, "--max-output", "5"); code != 2 || !strings.Contains(stderr, "--max-output") {
		t.Errorf("max-output: exit %d, %q", code, stderr)
	}
	// An explicit --workspace may name the home directory, and --vault
	// needs no harness.
	s := connect(t, e.repo, e.with("ECC_MEMORY_HARNESS="), "--vault", "--workspace", e.home)
	ok(t, s, "echoes_status", map[string]any{})
}

// TestMCPMemoryRootsFromProcessCwd: memory roots are resolved per call from
// the server process's cwd (ecc-conformance §17.1, ecc-conformance §3.1), so a relative
// ECC_MEMORY_PROJECT_ROOT is taken against the directory the client started
// the server in, not against the Git top level.
func TestMCPMemoryRootsFromProcessCwd(t *testing.T) {
	e := newMCPEnv(t)
	sub := filepath.Join(e.repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s := connect(t, sub, e.with("ECC_MEMORY_PROJECT_ROOT=vault"), "--memory")
	id := memIDRe.FindStringSubmatch(ok(t, s, "memory_save", map[string]any{"title": "t", "body": "b"}))[1]
	if _, err := os.Stat(filepath.Join(sub, "vault", "project", "notes", id+".md")); err != nil {
		t.Errorf("the relative override was not resolved against the server's cwd: %v", err)
	}
}
