package mcpserve

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport of prose mcp over a client's pipes: the SDK's
// newline-delimited JSON-RPC (mcp.IOTransport) on in and out, held to
// what the protocol asks of a server and clients count on:
//
//   - a request the client cancelled (notifications/cancelled) gets no
//     response: its handler's context ends, and what it returns is
//     dropped;
//   - at the end of in, every request still in progress is answered
//     before the connection closes, so a client that pipes its requests
//     and closes its end gets every answer; a request the server sends
//     the client meanwhile (an elicitation) fails at once, as no answer
//     can come;
//   - when ctx ends (Ctrl-C), the connection ends at once: the requests
//     in progress are cancelled, unanswered.
func Stdio(ctx context.Context, in io.Reader, out io.Writer) mcp.Transport {
	return &stdio{ctx: ctx, t: &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

type stdio struct {
	ctx context.Context
	t   mcp.Transport
}

// Connect implements mcp.Transport.
func (s *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := s.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &heldConn{inner: inner, stop: s.ctx, msgs: make(chan readResult),
		incoming: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{}, outgoing: map[jsonrpc.ID]bool{},
		changed: make(chan struct{}), closed: make(chan struct{})}
	go c.pump()
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// heldConn is the connection of Stdio: it tracks the requests in both
// directions to keep the promises above.
type heldConn struct {
	inner     mcp.Connection
	stop      context.Context
	msgs      chan readResult
	closed    chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	incoming  map[jsonrpc.ID]bool // the client's requests not yet answered
	cancelled map[jsonrpc.ID]bool // those of them the client cancelled
	outgoing  map[jsonrpc.ID]bool // the server's requests not yet answered
	ended     error               // why the input ended (nil: it has not)
	changed   chan struct{}       // closed, and replaced, when the above change
}

// errInputClosed answers the server's requests once the client's input
// has ended.
var errInputClosed = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client closed its input: no answer can come"}

// pump reads the client's messages for Read.
func (c *heldConn) pump() {
	for {
		msg, err := c.inner.Read(context.Background())
		select {
		case c.msgs <- readResult{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// signal wakes a Read waiting for the state to change (under mu).
func (c *heldConn) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Read implements mcp.Connection.
func (c *heldConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		msgs := c.msgs
		if c.ended != nil {
			msgs = nil
			for id := range c.outgoing {
				delete(c.outgoing, id)
				c.mu.Unlock()
				return &jsonrpc.Response{ID: id, Error: errInputClosed}, nil
			}
			if len(c.incoming) == 0 {
				err := c.ended
				c.mu.Unlock()
				return nil, err
			}
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case r := <-msgs:
			if r.err != nil {
				c.mu.Lock()
				c.ended = r.err
				c.mu.Unlock()
				continue
			}
			c.track(r.msg)
			return r.msg, nil
		case <-changed:
		case <-c.stop.Done():
			return nil, c.stop.Err()
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
	}
}

// track notes a message read from the client.
func (c *heldConn) track(msg jsonrpc.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			c.incoming[m.ID] = true
			return
		}
		if m.Method != "notifications/cancelled" {
			return
		}
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if id, err := jsonrpc.MakeID(p.RequestID); err == nil && c.incoming[id] {
			c.cancelled[id] = true
		}
	case *jsonrpc.Response:
		delete(c.outgoing, m.ID)
	}
}

// Write implements mcp.Connection.
func (c *heldConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		c.mu.Lock()
		if c.cancelled[m.ID] {
			delete(c.cancelled, m.ID)
			delete(c.incoming, m.ID)
			c.signal()
			c.mu.Unlock()
			return nil
		}
		c.mu.Unlock()
		err := c.inner.Write(ctx, msg)
		c.mu.Lock()
		delete(c.incoming, m.ID)
		c.signal()
		c.mu.Unlock()
		return err
	case *jsonrpc.Request:
		if m.IsCall() {
			c.mu.Lock()
			c.outgoing[m.ID] = true
			c.signal()
			c.mu.Unlock()
		}
	}
	return c.inner.Write(ctx, msg)
}

// Close implements mcp.Connection.
func (c *heldConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.inner.Close()
}

// SessionID implements mcp.Connection.
func (c *heldConn) SessionID() string { return c.inner.SessionID() }
