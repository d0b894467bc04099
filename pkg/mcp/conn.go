package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one server's connection.
type conn struct {
	m      *Manager
	server Server

	mu      sync.Mutex
	state   State
	reason  string
	proc    *proc
	session *sdk.ClientSession
	tools   []*Tool
	infos   []ToolInfo
	stale   bool // the server announced a changed tool list
	noted   map[string]bool
	// cancelHTTP ends an HTTP server's requests still going.
	cancelHTTP context.CancelFunc
	// closeIdle closes an HTTP server's idle connections (nil: the
	// caller's client owns them).
	closeIdle func()
	closing   bool
	done      chan struct{} // closed when the connection has ended
}

func (c *conn) callTimeout() time.Duration {
	return cmp.Or(c.server.CallTimeout, c.m.opts.CallTimeout, DefaultCallTimeout)
}

func (c *conn) start(ctx context.Context) {
	timeout := cmp.Or(c.server.StartTimeout, c.m.opts.StartTimeout, DefaultStartTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := c.connect(ctx)
	if err == nil {
		err = c.listTools(ctx)
		if p := c.proc; errors.Is(err, io.EOF) && p != nil && p.waitExit(stopGrace) {
			err = fmt.Errorf("the server %s while listing its tools", p.status)
		}
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("no answer within the start timeout of %s (set \"startTimeout\" in seconds on the server to wait longer)", timeout)
		}
		closed := c.closeSession()
		c.fail(StateFailed, err.Error())
		<-closed
		return
	}
	c.mu.Lock()
	c.state = StateStarted
	c.done = make(chan struct{})
	c.mu.Unlock()
	go c.watch()
}

// closeSession ends the session of a server that failed after it
// connected (its tools could not be listed): nothing watches it, so
// nothing else would. It gives the session a bounded grace to end
// politely (an HTTP server is told), then returns a channel closed when
// it has ended, which fail's ending of the server's side makes sure of.
func (c *conn) closeSession() <-chan struct{} {
	c.mu.Lock()
	s := c.session
	c.session = nil
	c.mu.Unlock()
	closed := make(chan struct{})
	if s == nil {
		close(closed)
		return closed
	}
	go func() { _ = s.Close(); close(closed) }()
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-closed:
	case <-t.C:
	}
	return closed
}

func (c *conn) connect(ctx context.Context) error {
	client := sdk.NewClient(&sdk.Implementation{Name: "gopi", Version: cmp.Or(c.m.opts.Version, "dev")}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			c.mu.Lock()
			c.stale = true
			c.mu.Unlock()
		},
	})
	var transport sdk.Transport
	if c.server.URL != "" {
		t, err := c.httpTransport()
		if err != nil {
			return err
		}
		transport = t
	} else {
		p, err := startProc(c.m.forker, c.server, c.m.opts.Environ, c.m.opts.Getenv)
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.proc = p
		c.mu.Unlock()
		// The SDK's own line limit is off: frameReader bounds lines, and
		// drops a bad one without ending the connection.
		transport = &sdk.IOTransport{Reader: newFrameReader(p.stdout, maxFrame, c.note), Writer: p.stdin, MaxLineLength: -1}
	}
	type result struct {
		s   *sdk.ClientSession
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := client.Connect(ctx, transport, nil)
		ch <- result{s, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		// The SDK's own cleanup may wait on a server that does not answer:
		// end the server's side first.
		c.mu.Lock()
		p, cancelHTTP := c.proc, c.cancelHTTP
		c.mu.Unlock()
		if cancelHTTP != nil {
			cancelHTTP()
		}
		if p != nil {
			p.stop()
		}
		r = <-ch
	}
	if r.err != nil && c.proc != nil && ctx.Err() == nil && c.proc.waitExit(stopGrace) {
		return fmt.Errorf("the server %s before it answered", c.proc.status)
	}
	if r.err != nil {
		return r.err
	}
	c.mu.Lock()
	c.session = r.s
	c.mu.Unlock()
	return nil
}

// listTools reads the server's tools (every page) and names them.
func (c *conn) listTools(ctx context.Context) error {
	c.mu.Lock()
	s := c.session
	c.mu.Unlock()
	var remote []*sdk.Tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing its tools: %w", err)
		}
		remote = append(remote, t)
	}
	ts, err := c.adapt(remote)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.tools, c.stale = ts, false
	c.infos = make([]ToolInfo, len(ts))
	for i, t := range ts {
		c.infos[i] = ToolInfo{Name: t.spec.Name, Remote: t.remote, Description: t.spec.Description, server: c.server.Name}
	}
	c.mu.Unlock()
	return nil
}

// currentTools returns the server's tools, read again when it said they
// changed; a server that is not running has none.
func (c *conn) currentTools() []*Tool {
	c.mu.Lock()
	state, stale := c.state, c.stale
	c.mu.Unlock()
	if state != StateStarted {
		return nil
	}
	if stale {
		ctx, cancel := context.WithTimeout(context.Background(), c.callTimeout())
		err := c.listTools(ctx)
		cancel()
		if err != nil && c.m.opts.Report != nil {
			st := c.status()
			st.Reason = c.server.Redact(fmt.Sprintf("its tools changed, and reading them again failed: %v; the old list stays", err))
			c.m.opts.Report(st)
		}
		c.mu.Lock()
		c.stale = false
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

// watch waits for the connection to end; unless gopi ended it, the
// server died: it is reported and its tools are withdrawn.
func (c *conn) watch() {
	c.mu.Lock()
	s, p, done := c.session, c.proc, c.done
	c.mu.Unlock()
	ended := make(chan struct{})
	go func() { _ = s.Wait(); close(ended) }()
	var exited <-chan struct{}
	if p != nil {
		exited = p.exited
	}
	select {
	case <-ended:
	case <-exited:
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if !closing {
		reason := "its connection closed"
		if p != nil {
			select {
			case <-p.exited:
				reason = "the server " + p.status
				select { // its last words, for the report's stderr tail
				case <-p.errEOF:
				case <-time.After(stopGrace):
				}
			case <-time.After(stopGrace):
				reason = "its output closed"
			}
		}
		c.fail(StateDied, reason)
		if r := c.m.opts.Report; r != nil {
			r(c.status())
		}
	}
	_ = s.Close()
	<-ended
	close(done)
}

// fail records why the server is not running and ends what is left of it.
func (c *conn) fail(state State, reason string) {
	c.mu.Lock()
	c.state, c.reason, c.tools = state, reason, nil
	p, cancelHTTP := c.proc, c.cancelHTTP
	c.mu.Unlock()
	if cancelHTTP != nil && state == StateFailed {
		cancelHTTP()
	}
	if p != nil && state == StateFailed {
		p.stop()
	}
}

// deadReason is why calls to the server cannot be made, "" while it runs.
func (c *conn) deadReason() string {
	st := c.status()
	if st.State == StateStarted {
		return ""
	}
	return st.Message()
}

func (c *conn) status() Status {
	c.mu.Lock()
	st := Status{Server: c.server, State: c.state, Reason: c.server.Redact(c.reason), Tools: slices.Clone(c.infos)}
	p := c.proc
	c.mu.Unlock()
	if p != nil && st.State != StateStarted {
		st.Stderr = p.tail.lines(10)
	}
	for i := range st.Tools {
		st.Tools[i].Selected = c.m.opts.Select == nil || c.m.opts.Select(st.Tools[i].Name)
	}
	return st
}

// stop ends the connection and the server; false when its process did
// not end within the bounds.
func (c *conn) stop() bool {
	c.mu.Lock()
	c.closing = true
	s, p, done := c.session, c.proc, c.done
	c.mu.Unlock()
	ok := true
	if p != nil {
		ok = p.stop() // before the session: closing stdin is how a stdio server is asked to end
	}
	if s != nil {
		_ = s.Close()
	}
	if done != nil { // closed once watch has seen the session end
		select {
		case <-done:
		case <-time.After(2 * stopGrace):
		}
	}
	c.mu.Lock()
	if c.cancelHTTP != nil {
		c.cancelHTTP()
	}
	if c.closeIdle != nil {
		c.closeIdle()
	}
	c.mu.Unlock()
	return ok
}
