package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// serveLines runs a memory-only server over the real line transport
// (Serve: LineTransport under SerialTransport) on input and returns each
// output line.
func serveLines(t *testing.T, input string) []string {
	t.Helper()
	s, err := New(Config{Memory: true, Harness: "codex", MemoryCwd: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := Serve(context.Background(), s, strings.NewReader(input), &out, 0); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

const (
	testInitialize  = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	testInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// answer is the id and error code of one output line.
type answer struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

func parseAnswer(t *testing.T, line string) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatalf("not JSON: %s", line)
	}
	return a
}

func (a answer) code() int64 {
	if a.Error == nil {
		return 0
	}
	return a.Error.Code
}

// TestInitializeParamsRequired: an initialize whose params lack what the
// MCP schema requires (clientInfo with name and version, capabilities,
// protocolVersion) is -32602 Invalid initialize parameters, as the
// reference answers (ecc-conformance §17.3), and starts no session: a
// request after it is still -32002, and a valid initialize then succeeds.
func TestInitializeParamsRequired(t *testing.T) {
	bad := []string{
		`{"protocolVersion":"2025-06-18","capabilities":{}}`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":null}`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":"x"}`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t"}}`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"","version":"1"}}`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":1}}`,
		`{"protocolVersion":"2025-06-18","clientInfo":{"name":"t","version":"1"}}`,
		`{"protocolVersion":"2025-06-18","capabilities":[],"clientInfo":{"name":"t","version":"1"}}`,
		`{"capabilities":{},"clientInfo":{"name":"t","version":"1"}}`,
		`{"protocolVersion":7,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}`,
	}
	var input strings.Builder
	for i, p := range bad {
		fmt.Fprintf(&input, `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":%s}`+"\n", i, p)
	}
	input.WriteString(`{"jsonrpc":"2.0","id":"np","method":"initialize"}` + "\n")
	input.WriteString(`{"jsonrpc":"2.0","id":"after","method":"tools/list"}` + "\n")
	input.WriteString(testInitialize + "\n" + testInitialized + "\n")
	input.WriteString(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}` + "\n")
	lines := serveLines(t, input.String())
	if len(lines) != len(bad)+4 {
		t.Fatalf("%d answers:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i := range bad {
		a := parseAnswer(t, lines[i])
		if a.code() != -32602 || a.Error.Message != "Invalid initialize parameters." || string(a.ID) != fmt.Sprint(i) {
			t.Errorf("initialize %s: %s", bad[i], lines[i])
		}
	}
	if a := parseAnswer(t, lines[len(bad)]); a.code() != -32602 || string(a.ID) != `"np"` {
		t.Errorf("initialize without params: %s", lines[len(bad)])
	}
	if a := parseAnswer(t, lines[len(bad)+1]); a.code() != CodeNotInitialized {
		t.Errorf("a refused initialize started a session: %s", lines[len(bad)+1])
	}
	if a := parseAnswer(t, lines[len(bad)+2]); a.Error != nil || string(a.ID) != `"init"` {
		t.Errorf("valid initialize: %s", lines[len(bad)+2])
	}
	if a := parseAnswer(t, lines[len(bad)+3]); a.Error != nil || !strings.Contains(string(a.Result), "memory_save") {
		t.Errorf("tools/list: %.200s", lines[len(bad)+3])
	}
}

// TestParamsRequired: a tools/call (or another request whose params the
// MCP schema requires) without params is -32602 Invalid params, not the
// SDK's -32600: the envelope is valid, the params are not. Before the
// session exists the lifecycle answer (-32002) still comes first.
func TestParamsRequired(t *testing.T) {
	lines := serveLines(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`+"\n"+
		testInitialize+"\n"+testInitialized+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"prompts/get"}`+"\n"+
		`{"jsonrpc":"2.0","id":4,"method":"resources/read"}`+"\n"+
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`+"\n")
	if len(lines) != 6 {
		t.Fatalf("%d answers:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if a := parseAnswer(t, lines[0]); a.code() != CodeNotInitialized {
		t.Errorf("before initialize: %s", lines[0])
	}
	for i, l := range lines[2:5] {
		if a := parseAnswer(t, l); a.code() != -32602 || string(a.ID) != fmt.Sprint(i+2) {
			t.Errorf("without params: %s", l)
		}
	}
	if a := parseAnswer(t, lines[5]); a.Error != nil {
		t.Errorf("tools/list without params: %s", lines[5])
	}
}

// TestIntegralNumberID: an id written 1.0 (or 1e2, -0.0) is the safe
// integer the reference reads (JSON.parse then Number.isSafeInteger): it
// is answered with that id, through SerialTransport, which must release
// the call so that the next request is read. A fraction (1.5) or an
// unsafe integer is still refused with id null.
func TestIntegralNumberID(t *testing.T) {
	lines := serveLines(t, testInitialize+"\n"+testInitialized+"\n"+
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":-0.0,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":9007199254740991.0,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n")
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":100,"result":{}}`,
		`{"jsonrpc":"2.0","id":0,"result":{}}`,
		`{"jsonrpc":"2.0","id":9007199254740991,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid JSON-RPC request."}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid JSON-RPC request."}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid JSON-RPC request."}}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("%d answers:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if lines[i+1] != w {
			t.Errorf("answer %d:\ngot  %s\nwant %s", i, lines[i+1], w)
		}
	}
}
