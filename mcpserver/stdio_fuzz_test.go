package mcpserver

import (
	"bytes"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzClassify: no line makes Classify panic; every line is a message, a
// silent skip, or a -32700/-32600 refusal; and a message is one the SDK
// encodes and Classify accepts again with the same method and id.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"memory_save","arguments":{"title":"t"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"x"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"ID":2,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x","method":"y"}`,
		`{"jsonrpc":"2.0","id":-9007199254740991,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{bad json}`, `42`, ``, "  \t", "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, rej := Classify(line)
		if (msg == nil) == (rej == nil) {
			t.Fatalf("want exactly one of a message and a refusal: %v %v", msg, rej)
		}
		if rej != nil {
			if rej.Code != 0 && rej.Code != jsonrpc.CodeParseError && rej.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("refusal code %d", rej.Code)
			}
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			t.Fatalf("a message that is not a request: %T", msg)
		}
		data, err := jsonrpc.EncodeMessage(req)
		if err != nil {
			t.Fatalf("the SDK cannot encode an accepted message: %v", err)
		}
		again, rej := Classify(data)
		if rej != nil {
			t.Fatalf("re-encoded message refused (%d): %s", rej.Code, data)
		}
		if r2 := again.(*jsonrpc.Request); r2.Method != req.Method || r2.ID != req.ID {
			t.Fatalf("re-encoded message differs: %s", data)
		}
	})
}

// FuzzFrames: readFrames splits any input exactly as bytes.Split on '\n'
// does (one CR stripped, a last empty piece not a line), reporting each
// piece longer than the cap as too large instead of its bytes.
func FuzzFrames(f *testing.F) {
	for _, s := range []string{"a\nb\n", "a\r\nb", "\n\n", "", "abcdefghijklmnop\nq", "x\r\r\n"} {
		f.Add([]byte(s), uint8(4))
	}
	f.Fuzz(func(t *testing.T, input []byte, capByte uint8) {
		limit := int(capByte%16) + 1
		frames := make(chan frame)
		closed := make(chan struct{})
		go readFrames(bytes.NewReader(input), limit, frames, closed)
		pieces := bytes.Split(input, []byte("\n"))
		if len(pieces[len(pieces)-1]) == 0 {
			pieces = pieces[:len(pieces)-1]
		}
		for i, p := range pieces {
			f := <-frames
			if f.err != nil {
				t.Fatalf("piece %d: early %v", i, f.err)
			}
			p = bytes.TrimSuffix(p, []byte("\r"))
			if len(p) > limit {
				if !f.tooLarge {
					t.Fatalf("piece %d (%d bytes, cap %d) not too large", i, len(p), limit)
				}
				continue
			}
			if f.tooLarge || !bytes.Equal(f.line, p) {
				t.Fatalf("piece %d: got %q (tooLarge %v), want %q", i, f.line, f.tooLarge, p)
			}
		}
		if f := <-frames; f.err != io.EOF {
			t.Fatalf("want io.EOF at the end, got %+v", f)
		}
		close(closed)
	})
}
