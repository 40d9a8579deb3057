package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeMessage is jsonrpc.EncodeMessage, byte for byte, with a fast path
// for the message a warm tools/call answers with (issue 19): a successful
// response. EncodeMessage marshals the SDK's wire struct with
// encoding/json, which runs the result (already JSON, marshalled by the SDK
// from the tool's result a moment before) through its scanner again to
// compact and validate it; on a 35 KB memory_search answer that pass was a
// sixth of the server's time. A result the SDK marshalled is compact valid
// JSON, so the envelope is written around it here; compactValid still
// elides insignificant space, as Compact would, and anything that is not
// plainly valid falls back to EncodeMessage, which then decides.
func encodeMessage(msg jsonrpc.Message) ([]byte, error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() {
		return jsonrpc.EncodeMessage(msg)
	}
	id, ok := resp.ID.Raw().(int64)
	if !ok { // string ids: encoding/json's string escaping decides
		return jsonrpc.EncodeMessage(msg)
	}
	out := make([]byte, 0, len(resp.Result)+48)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = strconv.AppendInt(out, id, 10)
	out = append(out, `,"result":`...)
	out, ok = compactValid(out, resp.Result)
	if !ok {
		return jsonrpc.EncodeMessage(msg)
	}
	return append(out, '}'), nil
}

// compactValid appends src without the space characters outside strings
// (what json.Compact elides) when src is a single JSON object or array
// whose strings and brackets balance; ok is false otherwise (and dst is
// then to be discarded). It does not validate numbers or literals: src is
// the output of encoding/json, and the fallback exists for what is not.
func compactValid(dst, src []byte) ([]byte, bool) {
	if len(src) == 0 || (src[0] != '{' && src[0] != '[') {
		return dst, false
	}
	depth := 0
	start := 0
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			switch {
			case c == '\\':
				i++ // the escaped byte is never a quote that ends the string
			case c == '"':
				inString = false
			case c < 0x20:
				return dst, false // a control character must be escaped
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return dst, false
			}
			if depth == 0 && i != len(src)-1 {
				// Something after the value: keep only trailing space.
				for _, t := range src[i+1:] {
					if t != ' ' && t != '\t' && t != '\n' && t != '\r' {
						return dst, false
					}
				}
				dst = append(dst, src[start:i+1]...)
				return dst, true
			}
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	if inString || depth != 0 {
		return dst, false
	}
	return append(dst, src[start:]...), true
}

// An answer from memory (memo.go) is the same result the first time it
// was sent, so it is also the same JSON: encodeMiddleware, the outermost
// receiving middleware, keeps the JSON the SDK marshals a memo entry's
// result to and gives it again for the next answer from that entry, which
// would otherwise be marshalled anew on every warm call (the SDK's
// CallToolResult.MarshalJSON, then encoding/json's compaction of it).
//
// Reuse is decided by what the bytes were made of, never assumed: the
// result must hold the entry's very content blocks and structuredContent
// (an enrich that replaced the structuredContent, stale.go, makes a new
// one), and everything else the SDK put in it (isError, _meta, the
// resultType it stamps for the 2026-07-28 protocol) must marshal to the
// same bytes as it did then (shell, below: the result without its
// content, a few bytes).

// encodedResult is a result with its JSON: encoding/json calls its
// MarshalJSON in place of the SDK's.
type encodedResult struct {
	*mcp.CallToolResult
	shell []byte // the result's JSON without content and structuredContent
	data  []byte // the whole result's JSON
}

func (e *encodedResult) MarshalJSON() ([]byte, error) { return e.data, nil }

// encodeSlotKey carries, from the middleware to the memo, where the memo
// names the entry a call's result comes from.
type encodeSlotKey struct{}

type encodeSlot struct{ entry *memoEntry }

// keepEncoding records that this call's result is e's (nil: none).
func keepEncoding(ctx context.Context, e *memoEntry) {
	if slot, ok := ctx.Value(encodeSlotKey{}).(*encodeSlot); ok {
		slot.entry = e
	}
}

func encodeMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		slot := &encodeSlot{}
		res, err := next(context.WithValue(ctx, encodeSlotKey{}, slot), method, req)
		ctr, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || ctr == nil || slot.entry == nil || !sameContent(ctr, slot.entry.res) {
			return res, err
		}
		shell, err := shellJSON(ctr)
		if err != nil {
			return res, nil
		}
		if enc := slot.entry.enc.Load(); enc != nil && bytes.Equal(enc.shell, shell) {
			return &encodedResult{CallToolResult: ctr, shell: shell, data: enc.data}, nil
		}
		data, err := ctr.MarshalJSON()
		if err != nil {
			return res, nil // the SDK marshals it again and reports
		}
		enc := &encodedResult{CallToolResult: ctr, shell: shell, data: data}
		slot.entry.enc.Store(enc)
		return enc, nil
	}
}

// sameContent: a's content blocks and structuredContent are b's own (the
// same slice and the same bytes in memory), which a memo entry's copy
// shares with the entry.
func sameContent(a, b *mcp.CallToolResult) bool {
	if len(a.Content) != len(b.Content) || (len(a.Content) > 0 && &a.Content[0] != &b.Content[0]) {
		return false
	}
	ra, okA := a.StructuredContent.(json.RawMessage)
	rb, okB := b.StructuredContent.(json.RawMessage)
	switch {
	case a.StructuredContent == nil && b.StructuredContent == nil:
		return true
	case !okA || !okB || len(ra) != len(rb):
		return false
	}
	return len(ra) == 0 || &ra[0] == &rb[0]
}

// shellJSON is r's JSON without its content and structuredContent: every
// other field the SDK marshals, unexported ones included (the copy keeps
// them).
func shellJSON(r *mcp.CallToolResult) ([]byte, error) {
	cp := *r
	cp.Content, cp.StructuredContent = nil, nil
	return cp.MarshalJSON()
}
