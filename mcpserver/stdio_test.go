package mcpserver

import (
	"context"
	"errors"
	"io"
	"runtime"
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

// endlessLine yields n bytes of 'a', then "\nok\n".
type endlessLine struct{ n int }

func (r *endlessLine) Read(p []byte) (int, error) {
	if r.n <= 0 {
		if r.n == 0 {
			r.n = -1
			return copy(p, "\nok\n"), nil
		}
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = 'a'
	}
	r.n -= k
	return k, nil
}

// TestHugeLineBoundedMemory: a 256 MiB line is discarded as it is read:
// what the reader allocates stays near the 4 MiB cap, not the line's size,
// and the next line is read normally.
func TestHugeLineBoundedMemory(t *testing.T) {
	frames := make(chan frame)
	closed := make(chan struct{})
	defer close(closed)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	go readFrames(&endlessLine{n: 256 << 20}, DefaultMaxLine, frames, closed)
	if f := <-frames; !f.tooLarge {
		t.Fatalf("first frame: %+v", f)
	}
	if f := <-frames; string(f.line) != "ok" {
		t.Fatalf("second frame: %q", f.line)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("reading a 256 MiB line allocated %d MiB", grew>>20)
	}
}
