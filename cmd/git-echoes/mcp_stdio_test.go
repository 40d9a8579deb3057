package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// End-to-end tests of the stdio transport: the real command as a process,
// fed raw lines, its output read line by line. The server answers in
// arrival order, one request at a time, so each test knows exactly which
// answer each line gets.

// rpcLine is one request line.
func rpcLine(t *testing.T, id any, method string, params any) string {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// handshake is initialize and its notification at version.
func handshake(t *testing.T, version string) string {
	return rpcLine(t, "init", "initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}}) + "\n" +
		rpcLine(t, nil, "notifications/initialized", nil) + "\n"
}

// rpcAnswer is one output line.
type rpcAnswer struct {
	Raw    string
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a rpcAnswer) code() int {
	if a.Error == nil {
		return 0
	}
	return a.Error.Code
}

// runRaw starts `git echoes mcp args...` in e.repo, writes input to its
// stdin, closes it and returns every output line, the exit status and
// stderr.
func runRaw(t *testing.T, e *mcpEnv, input io.Reader, args ...string) ([]rpcAnswer, int, string) {
	t.Helper()
	cmd := exec.Command(mcpBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = e.repo, e.vars
	cmd.Stdin = input
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var answers []rpcAnswer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		a := rpcAnswer{Raw: sc.Text()}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("output line is not JSON: %v\n%s", err, sc.Text())
		}
		answers = append(answers, a)
	}
	return answers, code, stderr.String()
}

// TestMCPStdioBadLinesInterleaved: every line that is not a valid message
// gets its JSON-RPC 2.0 error with id null (-32700 not JSON, -32600 not a
// request) and the session goes on: every good request is answered, in
// order. A blank line is skipped (ecc-conformance §17.2).
func TestMCPStdioBadLinesInterleaved(t *testing.T) {
	e := newMCPEnv(t)
	bad := []struct {
		line string
		code int
	}{
		{`{bad json}`, -32700},
		{`not json`, -32700},
		{`42`, -32600},
		{`[1]`, -32600},
		{`[]`, -32600},
		{`"str"`, -32600},
		{`null`, -32600},
		{`{"id":5,"method":"ping"}`, -32600}, // no "jsonrpc"
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600},                // wrong version
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},          // object id
		{`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, -32600},            // not an integer
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},              // float id
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, -32600}, // 2^53
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":"","method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":7,"method":5}`, -32600},
		{`{"jsonrpc":"2.0","id":7,"method":""}`, -32600},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}`, -32600},
		{`{"jsonrpc":"2.0","id":7}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700}, // truncated: the next line is not its rest
		{strings.Repeat("[", 100000) + strings.Repeat("]", 100000), -32700},
		{strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000), -32700},
		{"\xff\xfe", -32700},
	}
	var in strings.Builder
	in.WriteString(handshake(t, "2025-06-18"))
	in.WriteString("\n   \n") // blank lines: skipped
	for i, b := range bad {
		in.WriteString(b.line + "\n")
		in.WriteString(rpcLine(t, 1000+i, "tools/call", map[string]any{"name": "memory_search", "arguments": map[string]any{"query": "x"}}) + "\n")
	}
	in.WriteString(rpcLine(t, "last", "ping", nil) + "\n")
	answers, code, stderr := runRaw(t, e, strings.NewReader(in.String()), "--memory")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := 1 + 2*len(bad) + 1
	if len(answers) != want {
		t.Fatalf("got %d answers, want %d:\n%v", len(answers), want, answers)
	}
	if string(answers[0].ID) != `"init"` || answers[0].Error != nil {
		t.Fatalf("initialize: %s", answers[0].Raw)
	}
	for i, b := range bad {
		got, good := answers[1+2*i], answers[2+2*i]
		if got.code() != b.code || string(got.ID) != "null" {
			t.Errorf("line %.60q: got %s, want code %d with id null", b.line, got.Raw, b.code)
		}
		if string(good.ID) != fmt.Sprint(1000+i) || good.Error != nil || !strings.Contains(string(good.Result), "results") {
			t.Errorf("the request after %.60q: %.200s", b.line, good.Raw)
		}
	}
	if last := answers[len(answers)-1]; string(last.ID) != `"last"` || last.Error != nil {
		t.Errorf("last ping: %s", last.Raw)
	}
}

// TestMCPStdioHugeLine: a 5 MB line is over the 4 MiB cap: -32700 "too
// large" with id null, the line discarded as it is read, and the session
// goes on.
func TestMCPStdioHugeLine(t *testing.T) {
	e := newMCPEnv(t)
	huge := rpcLine(t, 2, "tools/call", map[string]any{"name": "memory_search", "arguments": map[string]any{"query": strings.Repeat("a", 5_000_000)}})
	input := handshake(t, "2025-06-18") + huge + "\n" + rpcLine(t, 3, "ping", nil) + "\n"
	answers, code, stderr := runRaw(t, e, strings.NewReader(input), "--memory")
	if code != 0 || len(answers) != 3 {
		t.Fatalf("exit %d, %d answers: %v\n%s", code, len(answers), answers, stderr)
	}
	if a := answers[1]; a.code() != -32700 || string(a.ID) != "null" || a.Error.Message != "JSON-RPC message is too large." {
		t.Errorf("huge line: %s", a.Raw)
	}
	if a := answers[2]; string(a.ID) != "3" || a.Error != nil {
		t.Errorf("ping after the huge line: %s", a.Raw)
	}
	// Just under the cap is a message like any other.
	fits := rpcLine(t, 4, "ping", map[string]any{"_meta": map[string]any{"pad": strings.Repeat("b", 4<<20-100)}})
	if len(fits) > 4<<20 {
		t.Fatalf("test line too long: %d", len(fits))
	}
	answers, _, _ = runRaw(t, e, strings.NewReader(handshake(t, "2025-06-18")+fits+"\n"), "--memory")
	if len(answers) != 2 || string(answers[1].ID) != "4" || answers[1].Error != nil {
		t.Errorf("a line under the cap: %v", answers)
	}
}

// TestMCPStdioPipelined1000: 1,000 requests written at once are all
// answered, in order.
func TestMCPStdioPipelined1000(t *testing.T) {
	e := newMCPEnv(t)
	var in strings.Builder
	in.WriteString(handshake(t, "2025-11-25"))
	const n = 1000
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			in.WriteString(rpcLine(t, i, "ping", nil))
		case 1:
			in.WriteString(rpcLine(t, i, "tools/list", nil))
		default:
			in.WriteString(rpcLine(t, i, "tools/call", map[string]any{"name": "memory_doctor", "arguments": map[string]any{}}))
		}
		in.WriteString("\n")
	}
	answers, code, stderr := runRaw(t, e, strings.NewReader(in.String()), "--memory")
	if code != 0 || len(answers) != n+1 {
		t.Fatalf("exit %d, %d answers, want %d\n%s", code, len(answers), n+1, stderr)
	}
	for i, a := range answers[1:] {
		if string(a.ID) != fmt.Sprint(i) || a.Error != nil {
			t.Fatalf("answer %d: %.200s", i, a.Raw)
		}
	}
}

// TestMCPStdioEndOfInput: input that ends in the middle of a message gets
// -32700 and the server exits 0; a complete last request without a
// trailing newline is still answered.
func TestMCPStdioEndOfInput(t *testing.T) {
	e := newMCPEnv(t)
	answers, code, stderr := runRaw(t, e, strings.NewReader(handshake(t, "2025-06-18")+`{"jsonrpc":"2.0","id":"t",`), "--memory")
	if code != 0 || len(answers) != 2 || answers[1].code() != -32700 || string(answers[1].ID) != "null" {
		t.Errorf("end mid-message: exit %d, %v, %s", code, answers, stderr)
	}
	answers, code, _ = runRaw(t, e, strings.NewReader(handshake(t, "2025-06-18")+rpcLine(t, 9, "ping", nil)), "--memory")
	if code != 0 || len(answers) != 2 || string(answers[1].ID) != "9" || answers[1].Error != nil {
		t.Errorf("last request without newline: exit %d, %v", code, answers)
	}
	// CRLF line ends are line ends.
	answers, code, _ = runRaw(t, e, strings.NewReader(strings.ReplaceAll(handshake(t, "2025-06-18"), "\n", "\r\n")+rpcLine(t, 10, "ping", nil)+"\r\n"), "--memory")
	if code != 0 || len(answers) != 2 || string(answers[1].ID) != "10" {
		t.Errorf("CRLF: exit %d, %v", code, answers)
	}
}

// TestMCPStdioLifecycle: a request before initialize is -32002 (not code
// 0), a second initialize is -32600, and a client may probe with
// server/discover and then initialize, as Claude Code does.
func TestMCPStdioLifecycle(t *testing.T) {
	e := newMCPEnv(t)
	discover := rpcLine(t, "d", "server/discover", map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}})
	input := rpcLine(t, 1, "tools/list", nil) + "\n" +
		rpcLine(t, 2, "tools/call", map[string]any{"name": "memory_doctor"}) + "\n" +
		discover + "\n" +
		handshake(t, "2025-06-18") +
		rpcLine(t, 3, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw", "version": "1"}}) + "\n" +
		rpcLine(t, 4, "tools/list", nil) + "\n"
	answers, code, stderr := runRaw(t, e, strings.NewReader(input), "--memory")
	if code != 0 || len(answers) != 6 {
		t.Fatalf("exit %d, %d answers: %v\n%s", code, len(answers), answers, stderr)
	}
	for i, a := range answers[:2] {
		if a.code() != -32002 || string(a.ID) != fmt.Sprint(i+1) || a.Error.Message != "Server is not initialized." {
			t.Errorf("before initialize: %s", a.Raw)
		}
	}
	if a := answers[2]; a.Error != nil || !strings.Contains(string(a.Result), `"supportedVersions"`) || !strings.Contains(string(a.Result), `"2026-07-28"`) {
		t.Errorf("server/discover: %s", a.Raw)
	}
	if a := answers[3]; a.Error != nil || !strings.Contains(string(a.Result), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("initialize after discover: %s", a.Raw)
	}
	if a := answers[4]; a.code() != -32600 || a.Error.Message != "Server is already initialized." {
		t.Errorf("second initialize: %s", a.Raw)
	}
	if a := answers[5]; a.Error != nil || !strings.Contains(string(a.Result), "memory_save") {
		t.Errorf("tools/list: %.200s", a.Raw)
	}
}

// TestMCPServerInfoVersion: initialize's serverInfo names git-echoes at the
// version `git echoes --version` prints, not the EchoesVault engine version
// (issue 17).
func TestMCPServerInfoVersion(t *testing.T) {
	e := newMCPEnv(t)
	answers, code, stderr := runRaw(t, e, strings.NewReader(handshake(t, "2025-06-18")), "--memory")
	if code != 0 || len(answers) == 0 {
		t.Fatalf("exit %d, %d answers: %s", code, len(answers), stderr)
	}
	var res struct {
		ServerInfo struct{ Name, Version string } `json:"serverInfo"`
	}
	if err := json.Unmarshal(answers[0].Result, &res); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mcpBinary(t), "version", "--format", "json")
	cmd.Env = e.vars
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var ver struct{ Version string }
	if err := json.Unmarshal(out, &ver); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.ServerInfo.Name != "git-echoes" || res.ServerInfo.Version != ver.Version || ver.Version == gitvault.EngineVersion {
		t.Errorf("serverInfo = %+v, want git-echoes %q (not the engine's %q)", res.ServerInfo, ver.Version, gitvault.EngineVersion)
	}
}
