package mcpserver

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SerialTransport wraps a transport so that the server handles one request
// at a time, in arrival order, as the reference memory server does
// (ecc-conformance §17.2). The SDK runs calls concurrently by design, so a
// client that pipelines a save and a read could otherwise see the read
// finish first. The next message is not read until the response to the
// current call has been written. Notifications do not wait, and neither
// does a subscription (longLived).
//
// This server never sends requests of its own to the client, so holding the
// read side while a call runs cannot deadlock.
type SerialTransport struct{ mcp.Transport }

// Connect implements mcp.Transport.
func (t SerialTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &serialConn{Connection: conn, free: make(chan struct{}, 1), closed: make(chan struct{})}
	c.free <- struct{}{}
	return c, nil
}

type serialConn struct {
	mcp.Connection
	free   chan struct{} // holds the token while no call is in flight
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	inflight jsonrpc.ID // the call whose response releases the token
}

var errConnClosed = errors.New("connection closed")

func (c *serialConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-c.free:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, errConnClosed
	}
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); err == nil && ok && req.ID.IsValid() && !longLived(req.Method) {
		c.mu.Lock()
		c.inflight = req.ID
		c.mu.Unlock()
		return msg, nil // the token returns when the response is written
	}
	c.free <- struct{}{}
	return msg, err
}

// longLived reports a call that is answered only when the client ends it:
// subscriptions/listen (protocol 2026-07-28) stays open to carry
// notifications. Holding the read side until its response would stop the
// session, so it does not take the token; it runs beside the calls.
func longLived(method string) bool { return method == "subscriptions/listen" }

func (c *serialConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		release := c.inflight.IsValid() && resp.ID == c.inflight
		if release {
			c.inflight = jsonrpc.ID{}
		}
		c.mu.Unlock()
		if release {
			c.free <- struct{}{}
		}
	}
	return err
}

func (c *serialConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
