package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestWriteNoCodeZero: an error the SDK answers without a JSON-RPC code
// (a plain Go error: code 0, which is no JSON-RPC error code) goes out as
// -32603 with its message; coded errors and results are unchanged.
func TestWriteNoCodeZero(t *testing.T) {
	var out strings.Builder
	c := &lineConn{out: &out, pending: map[jsonrpc.ID]string{}, closed: make(chan struct{})}
	id, _ := jsonrpc.MakeID(float64(7))
	ctx := context.Background()
	if err := c.Write(ctx, &jsonrpc.Response{ID: id, Error: errors.New("method \"x\" is invalid")}); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32602, Message: "bad"}}); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"method \"x\" is invalid"}}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}` + "\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
