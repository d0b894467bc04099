package mcp

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"gopi/pkg/tools"
)

// Options are what a Manager is given of the world.
type Options struct {
	// Environ is the environment stdio servers start with (credentials
	// already removed); a server's "env" adds to it.
	Environ []string
	// Getenv expands ${VAR} in env and header values and reads bearer
	// tokens; it sees the whole environment. Nil expands nothing.
	Getenv func(string) string
	// StartTimeout and CallTimeout apply to servers that set none; zero
	// takes DefaultStartTimeout and DefaultCallTimeout.
	StartTimeout time.Duration
	CallTimeout  time.Duration
	// Select says which tools (by their mcp__ names) are offered; nil
	// offers all.
	Select func(name string) bool
	// Report receives the status of a server that died after it started,
	// and a note when a changed tool list could not be read or a tool is
	// not offered; nil drops them.
	Report func(Status)
	// HTTPClient carries HTTP servers' requests; nil makes one.
	HTTPClient *http.Client
	// Version is gopi's, sent as the client's version.
	Version string
}

// Manager holds the started servers of one run.
type Manager struct {
	opts   Options
	conns  []*conn
	forker *forker // starts stdio servers; closed by Close

	mu     sync.Mutex
	closed bool
	warned map[string]bool // tools reported as not offered
}

// Start starts the enabled servers in parallel and returns when each has
// started (and listed its tools) or failed, or ctx ends; each has its
// start timeout. A failure is in Statuses, not an error.
func Start(ctx context.Context, servers []Server, opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	m := &Manager{opts: opts, forker: newForker()}
	var wg sync.WaitGroup
	for _, s := range servers {
		c := &conn{m: m, server: s, state: StateDisabled}
		m.conns = append(m.conns, c)
		if s.Disabled {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.start(ctx)
		}()
	}
	wg.Wait()
	return m
}

// Statuses returns every configured server's status, in configured order.
// A tool whose name an earlier tool holds is marked not offered, with a
// note that says so.
func (m *Manager) Statuses() []Status {
	out := make([]Status, len(m.conns))
	owner := map[string]ToolInfo{}
	for i, c := range m.conns {
		out[i] = c.status()
		for j, ti := range out[i].Tools {
			first, taken := owner[ti.Name]
			if !taken {
				owner[ti.Name] = ti
				continue
			}
			out[i].Tools[j].Selected = false
			out[i].Tools[j].Note = fmt.Sprintf("its name is already that of server %s's tool %q", first.server, first.Remote)
		}
	}
	return out
}

// Tools returns the tools of the servers running now, those Options.Select
// takes. A server that announced a changed list is asked for it again
// first, so the list changes between model requests only (the registry
// asks before each). It implements tools.Source.
//
// A name is one tool's over the whole manager: a tool whose name an
// earlier one holds (server a's tool b__c and server a__b's tool c are
// both mcp__a__b__c) is not offered, and Options.Report hears of it once.
func (m *Manager) Tools() []tools.Tool {
	var out []tools.Tool
	owner := map[string]*Tool{}
	for _, c := range m.conns {
		for _, t := range c.currentTools() {
			if first, taken := owner[t.spec.Name]; taken {
				m.reportTaken(t, first)
				continue
			}
			owner[t.spec.Name] = t
			if m.opts.Select == nil || m.opts.Select(t.spec.Name) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Close stops every server: a stdio server's stdin is closed, then its
// process group gets SIGTERM and SIGKILL, each after a bounded wait; an
// HTTP session is ended. It returns the names of servers whose process
// did not end. Close may be called more than once.
func (m *Manager) Close() []string {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		left []string
	)
	for _, c := range m.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !c.stop() {
				mu.Lock()
				left = append(left, c.server.Name)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	m.forker.close()
	slices.Sort(left)
	return left
}

// Kill ends every stdio server's process group at once, without waiting:
// for a process on its way out.
func (m *Manager) Kill() {
	for _, c := range m.conns {
		c.mu.Lock()
		p := c.proc
		c.mu.Unlock()
		if p != nil {
			p.group.kill()
		}
	}
}
