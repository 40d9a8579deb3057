package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio transport of `git echoes mcp`, in place of the SDK's. The SDK's
// reads the input as a stream of JSON values, so one bad line ends the
// session and a truncated one swallows the lines after it. Ours is line
// delimited, as the MCP stdio transport and ecc-conformance §17.2 are: one
// line is one message whatever it holds. A line that is not a valid
// JSON-RPC message gets its JSON-RPC 2.0 error (-32700 Parse error or
// -32600 Invalid Request, id null) and the session goes on; a line over the
// cap is discarded as it is read, never held in memory.

// DefaultMaxLine bounds one inbound line in bytes (the newline excluded).
// ecc-conformance §17.2 caps the memory-only server at 1 MiB; page upserts
// carry whole pages, so this server allows 4 MiB.
const DefaultMaxLine = 4 << 20

// JSON-RPC error codes of the MCP lifecycle beyond the standard ones.
const (
	// CodeNotInitialized answers a request sent before initialize
	// (ecc-conformance §17.3).
	CodeNotInitialized = -32002
)

// The messages of the transport's own answers (ecc-conformance §17.2 and ecc-conformance §17.3).
const (
	msgTooLarge           = "JSON-RPC message is too large."
	msgInvalidJSON        = "Invalid JSON."
	msgInvalidRequest     = "Invalid JSON-RPC request."
	msgNotInitialized     = "Server is not initialized."
	msgAlreadyInitialized = "Server is already initialized."
)

// Serve runs s over line-delimited JSON-RPC on in and out, one request at a
// time in arrival order (SerialTransport), until in ends, ctx is done or
// writing fails. maxLine 0 is DefaultMaxLine. The end of input is a normal
// end: Serve returns nil.
func Serve(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, maxLine int) error {
	err := s.Run(ctx, SerialTransport{Transport: &LineTransport{In: in, Out: out, MaxLine: maxLine, Server: s}})
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed)) {
		return nil
	}
	return err
}

// LineTransport is the line-delimited JSON-RPC transport. Server, when set,
// answers server/discover statelessly (see discover).
type LineTransport struct {
	In      io.Reader
	Out     io.Writer
	MaxLine int
	Server  *mcp.Server
}

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	c := &lineConn{out: t.Out, server: t.Server, frames: make(chan frame), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]string{}}
	go readFrames(t.In, limit, c.frames, c.closed)
	return c, nil
}

// frame is one line of input, or the end of it.
type frame struct {
	line     []byte
	tooLarge bool  // the line was longer than the cap; line is empty
	err      error // io.EOF at the end of input, else a read error
}

// readFrames splits r into lines on byte 0x0A, removes one trailing CR, and
// sends them in order. A line over limit bytes is discarded as it is read
// and reported as tooLarge. A last line without a newline is still a line.
func readFrames(r io.Reader, limit int, out chan<- frame, closed <-chan struct{}) {
	br := bufio.NewReaderSize(r, 64<<10)
	send := func(f frame) bool {
		select {
		case out <- f:
			return true
		case <-closed:
			return false
		}
	}
	for {
		var line []byte
		over, got := false, false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			got = got || len(chunk) > 0
			if !over {
				if len(line)+len(chunk) > limit+2 { // +2: a CR and the newline
					over, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			send(frame{err: err})
			return
		}
		ended := err == io.EOF
		if !ended || got {
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			if over || len(line) > limit {
				if !send(frame{tooLarge: true}) {
					return
				}
			} else if !send(frame{line: line}) {
				return
			}
		}
		if ended {
			send(frame{err: io.EOF})
			return
		}
	}
}

type lineConn struct {
	out    io.Writer
	server *mcp.Server
	frames chan frame
	closed chan struct{}
	once   sync.Once

	writeMu sync.Mutex // one message per line: writes never interleave

	mu          sync.Mutex
	initialized bool                  // a session exists: initialize succeeded or a 2026-07-28 request ran
	pending     map[jsonrpc.ID]string // in-flight lifecycle calls by id: "initialize" or "modern"
}

func (c *lineConn) SessionID() string { return "" }

// Read returns the next valid message. Invalid lines and requests the
// lifecycle refuses are answered here and skipped.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var f frame
		select {
		case f = <-c.frames:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
		if f.err != nil {
			return nil, f.err
		}
		if f.tooLarge {
			if err := c.reply(jsonrpc.ID{}, jsonrpc.CodeParseError, msgTooLarge); err != nil {
				return nil, err
			}
			continue
		}
		msg, rej := Classify(f.line)
		if rej != nil {
			if rej.Code == 0 { // nothing to answer: a blank line or a response
				continue
			}
			if err := c.reply(jsonrpc.ID{}, rej.Code, rej.Message); err != nil {
				return nil, err
			}
			continue
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			return msg, nil
		}
		answered, err := c.lifecycle(ctx, req)
		if err != nil {
			return nil, err
		}
		if !answered {
			return msg, nil
		}
	}
}

// lifecycle applies the MCP lifecycle to a call before the SDK sees it and
// reports whether it answered the call itself:
//   - before a session exists, only initialize, ping and server/discover
//     are served; anything else is -32002 (ecc-conformance §17.3), where the
//     SDK would answer with the non-JSON-RPC code 0;
//   - a second initialize is -32600 (ecc-conformance §17.3);
//   - params the MCP schema requires and the SDK lets through, or answers
//     -32600, are -32602 (checkParams);
//   - server/discover (protocol 2026-07-28) is answered by a fresh session
//     of the same server, so that it stays stateless: a client may probe
//     with it and then initialize, as Claude Code does, which the SDK alone
//     would refuse as a duplicate initialize.
//
// A request that carries the 2026-07-28 per-request _meta needs no
// handshake: the SDK serves it, and from then on a session exists.
func (c *lineConn) lifecycle(ctx context.Context, req *jsonrpc.Request) (bool, error) {
	modern := usesPerRequestMeta(req.Params)
	c.mu.Lock()
	initialized := c.initialized
	bad := checkParams(req) // params.go
	switch {
	case bad != nil: // answered below, never seen by the SDK
	case req.Method == "initialize" && !initialized && !modern:
		c.pending[req.ID] = req.Method
	case modern && !initialized && req.Method != "server/discover" && req.Method != "initialize":
		c.pending[req.ID] = "modern"
	}
	c.mu.Unlock()
	switch {
	case req.Method == "server/discover" && c.server != nil:
		return true, c.discover(ctx, req)
	case req.Method == "initialize" && initialized:
		return true, c.reply(req.ID, jsonrpc.CodeInvalidRequest, msgAlreadyInitialized)
	case !initialized && !modern && req.Method != "initialize" && req.Method != "ping" && req.Method != "server/discover":
		return true, c.reply(req.ID, CodeNotInitialized, msgNotInitialized)
	case bad != nil:
		return true, c.reply(req.ID, bad.Code, bad.Message)
	}
	return false, nil
}

// discover answers server/discover through a throwaway session of the same
// server over in-memory transports: the result is exactly the SDK's, and the
// real session's state is untouched.
func (c *lineConn) discover(ctx context.Context, req *jsonrpc.Request) error {
	resp, err := roundTrip(ctx, c.server, req)
	if err != nil {
		return c.reply(req.ID, jsonrpc.CodeInternalError, "Internal MCP server error.")
	}
	return c.writeMessage(resp)
}

func roundTrip(ctx context.Context, s *mcp.Server, req *jsonrpc.Request) (jsonrpc.Message, error) {
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverSide, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Wait()
	conn, err := clientSide.Connect(ctx)
	if err != nil {
		ss.Close()
		return nil, err
	}
	defer conn.Close()
	if err := conn.Write(ctx, req); err != nil {
		return nil, err
	}
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID == req.ID {
			return resp, nil
		}
	}
}

// usesPerRequestMeta reports whether params carry the 2026-07-28
// per-request protocol version (SEP-2575), the SDK's own test.
func usesPerRequestMeta(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return false
	}
	var v string
	if json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v) != nil {
		return false
	}
	return v >= "2026-07-28"
}

// Write implements mcp.Connection: one compact JSON message and a newline.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if m, ok := c.pending[resp.ID]; ok {
			delete(c.pending, resp.ID)
			// A successful initialize, or a successful first request of
			// the 2026-07-28 protocol, makes the SDK's session exist.
			if (m == "initialize" || m == "modern") && resp.Error == nil {
				c.initialized = true
			}
		}
		c.mu.Unlock()
		// An error without a JSON-RPC code (the SDK's plain Go errors) is
		// not valid JSON-RPC: code 0 is no error code. It is an internal
		// error as far as the client can tell.
		var werr *jsonrpc.Error
		if resp.Error != nil && !errors.As(resp.Error, &werr) {
			resp = &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}}
			msg = resp
		}
	}
	return c.writeMessage(msg)
}

func (c *lineConn) writeMessage(msg jsonrpc.Message) error {
	data, err := encodeMessage(msg) // encode.go
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// reply writes an error response; a zero id is written as null.
func (c *lineConn) reply(id jsonrpc.ID, code int64, message string) error {
	if id.IsValid() {
		return c.writeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message}})
	}
	e, _ := json.Marshal(struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, message})
	data := append(append([]byte(`{"jsonrpc":"2.0","id":null,"error":`), e...), "}\n"...)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(data)
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}
