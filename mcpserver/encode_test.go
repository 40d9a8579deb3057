package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fswatch"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeMessage must write exactly the bytes jsonrpc.EncodeMessage writes
// for every message whose result is valid JSON (the SDK's marshalled
// results are), whatever the fast path makes of it.
func checkEncode(t *testing.T, msg jsonrpc.Message) {
	t.Helper()
	want, werr := jsonrpc.EncodeMessage(msg)
	got, gerr := encodeMessage(msg)
	if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("encodeMessage = %q, %v; EncodeMessage = %q, %v", got, gerr, want, werr)
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	if n, ok := v.(int64); ok {
		v = float64(n) // how the SDK decodes a number id
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestEncodeMessageMatchesSDK(t *testing.T) {
	text := "{\n  \"a\": \"<b> & \u2028 \\\"quoted\\\" \\\\ \U0001F600 \xff\"\n}"
	res, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(`{"a": [1, 2.5e3, true, null, {"b": "c d"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	results := []string{string(res), `{}`, `[]`, `{"a":1}`, ` {"a" : [ 1 , 2 ] } `, "{\"a\":\t\"x y\"}\n", `[{"a":"]"},"}"]`,
		`{"a":"\\"}`, `"just a string"`, `12`, `null`}
	for _, id := range []any{int64(1), int64(-7), int64(1 << 53), "abc", "<x>&"} {
		for _, r := range results {
			checkEncode(t, &jsonrpc.Response{ID: mustID(t, id), Result: json.RawMessage(r)})
		}
		checkEncode(t, &jsonrpc.Response{ID: mustID(t, id), Error: &jsonrpc.Error{Code: -32602, Message: "bad <arg>"}})
	}
	checkEncode(t, &jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"x": 1}`)})
}

// The fast path only ever answers for a result it can delimit; anything
// else must reach EncodeMessage (the inputs here are invalid JSON, which
// EncodeMessage refuses).
func TestEncodeMessageFallsBack(t *testing.T) {
	for _, r := range []string{`{"a":1`, `{"a":"x}`, `{"a":1}}`, `{"a":1} x`, "{\"a\":\"\x01\"}", `{"a":"\`} {
		out, ok := compactValid(nil, []byte(r))
		if ok {
			t.Errorf("compactValid(%q) = %q, true; want a fallback", r, out)
		}
	}
}

func FuzzEncodeMessage(f *testing.F) {
	f.Add(int64(1), `{"content":[{"type":"text","text":"a <b>\n"}],"structuredContent":{"x": [1, 2]}}`)
	f.Add(int64(-3), ` [ "\u2028", {"k" : "\\\""} ] `)
	f.Add(int64(9007199254740991), `{}`)
	f.Fuzz(func(t *testing.T, id int64, result string) {
		if !json.Valid([]byte(result)) || id > 1<<53 || id < -(1<<53) {
			return // results are the SDK's marshalled JSON
		}
		checkEncode(t, &jsonrpc.Response{ID: mustID(t, id), Result: json.RawMessage(result)})
	})
}

// An answer from memory, sent from its kept JSON, is byte for byte the
// answer of a server that computes every call (no watcher, no memo).
func TestMemoAnswerBytes(t *testing.T) {
	dir := t.TempDir()
	env := func(string) string { return "" }
	save := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_save","arguments":{"title":"Retry <budget> & \u2028 limits","body":"The retry budget is 3 <per> call & no more."}}}`
	search := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"retry budget"}}}`, id)
	}
	run := func(w *fswatch.Watcher, stats *MemoStats, lines ...string) []string {
		s, err := New(Config{Memory: true, Harness: "codex", MemoryCwd: dir, Getenv: env, Watcher: w, Stats: stats})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := Serve(context.Background(), s, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, 0); err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	}
	run(nil, nil, testInitialize, testInitialized, save)
	w := fswatch.New(fswatch.Options{})
	defer w.Close()
	stats := &MemoStats{}
	got := run(w, stats, testInitialize, testInitialized, search(3), search(4), search(5))
	want := run(nil, nil, testInitialize, testInitialized, search(3), search(4), search(5))
	if w.State().Mode == fswatch.Events && stats.Hits.Load() < 2 {
		t.Fatalf("the memo answered %s", stats)
	}
	t.Log(stats)
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[len(got)-1], `\u003cbudget\u003e`) {
		t.Errorf("the answer is not the search's: %s", got[len(got)-1])
	}
}
