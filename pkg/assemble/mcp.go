package assemble

import (
	"context"
	"fmt"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

// MCPSettings are the MCP servers an Assembly starts and which of their
// tools it offers.
type MCPSettings struct {
	Servers []mcp.Server
	// Select says which tools (by their mcp__ names) are offered; nil
	// offers all.
	Select func(name string) bool
	// StartTimeout and CallTimeout apply to servers that set none; zero
	// takes mcp's defaults.
	StartTimeout, CallTimeout time.Duration
	// Narrow, when set, offers only the tools it takes of those Select
	// offers: a defined agent's child, whose tools name them.
	Narrow func(name string) bool
}

// addMCP adds the MCP servers' tools to reg, starting the servers with
// the first registry built (in parallel, within their start timeout);
// later Runtimes, and the task tool's children, reuse them. A server
// that does not start is named on stderr with its reason and stderr
// tail, and the run goes on without it, unless it is "required": then
// the build fails (ai.ClassRequired, exit 10) before any request.
func (a *Assembly) addMCP(environ []string, reg *tools.Registry) error {
	h := a.held
	if h == nil || len(a.s.MCP.Servers) == 0 {
		return nil
	}
	var err error
	h.mcpOnce.Do(func() {
		m := StartMCP(a.env, a.s.MCP, environ)
		if err = requiredFailed(a.env, m); err != nil {
			stopMCP(a.env, m)
			return
		}
		h.mu.Lock()
		h.mcp = m
		h.mu.Unlock()
	})
	if err != nil {
		return err
	}
	h.mu.Lock()
	m := h.mcp
	h.mu.Unlock()
	switch {
	case m == nil:
	case a.s.MCP.Narrow != nil:
		reg.AddSource(narrowed{src: m, keep: a.s.MCP.Narrow})
	default:
		reg.AddSource(m)
	}
	return nil
}

// requiredFailed says on stderr which servers did not start, and returns
// the error of the first required one among them.
func requiredFailed(env Env, m *mcp.Manager) error {
	for _, st := range m.Statuses() {
		if st.State != mcp.StateFailed {
			continue
		}
		if st.Server.Required {
			return &Error{Class: ai.ClassRequired, Err: fmt.Errorf("%s; it is required (\"required\": true in %s), so the run stops before any request%s", st.Summary(), st.Server.Source, st.StderrBlock())}
		}
		fmt.Fprintf(env.Stderr, "gopi: warning: %s; the run goes on without its tools%s\n", st.Summary(), st.StderrBlock())
	}
	return nil
}

// StartMCP starts the servers of m with environ (credentials already
// removed), reporting a server that dies or a changed tool list on
// env.Stderr; env.Context's end stops the start. The caller closes the
// manager.
func StartMCP(env Env, m MCPSettings, environ []string) *mcp.Manager {
	opts := mcp.Options{Environ: environ, Getenv: env.Getenv, Version: env.Version,
		StartTimeout: m.StartTimeout, CallTimeout: m.CallTimeout, Select: m.Select}
	opts.Report = func(st mcp.Status) {
		if st.State == mcp.StateDied {
			fmt.Fprintf(env.Stderr, "gopi: warning: %s; its tools are withdrawn%s\n", st.Summary(), st.StderrBlock())
		} else {
			fmt.Fprintf(env.Stderr, "gopi: warning: MCP server %s: %s\n", st.Server.Name, st.Reason)
		}
	}
	ctx := env.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return mcp.Start(ctx, m.Servers, opts)
}
