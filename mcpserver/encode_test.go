package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

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
