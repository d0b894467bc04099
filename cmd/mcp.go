package cmd

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"gopi/pkg/ai"
	"gopi/pkg/mcp"
	"gopi/pkg/settings"
	"gopi/pkg/tools"
)

// mcpPlan is the servers a run starts, and once started, their manager.
type mcpPlan struct {
	servers []mcp.Server
	opts    mcp.Options // without Environ, Getenv and Report: the run's

	once sync.Once
	m    *mcp.Manager
}

// readMCP reads the MCP servers of one invocation (settings.MCP):
// --bare reads no settings folder; --no-mcp and --no-tools start none.
func readMCP(c *settings.Settings, o *runOptions, cwd string) (*mcpPlan, error) {
	m, err := c.MCP(settings.MCPRequest{Cwd: cwd, Bare: o.bare, None: o.noMCP || o.noTools, Configs: o.mcpConfig, Exclude: o.excludeTools})
	if err != nil {
		return nil, err
	}
	return &mcpPlan{servers: m.Servers, opts: m.Options}, nil
}

// startMCP starts the run's servers (once per invocation: chat's later
// Runtimes reuse them) and adds their tools to reg. A server that does
// not start is named on stderr with its reason and stderr tail, and the
// run goes on without it, unless it is "required": then the run stops
// (exit 10) before any request.
// mcpTools is the MCP servers' part of every registry a run or chat
// builds: the servers start with the first, later ones reuse them.
func mcpTools(ctx context.Context, sys *System, s *runSettings) func(tools.Env, *tools.Registry) error {
	return func(env tools.Env, reg *tools.Registry) error { return startMCP(ctx, sys, s, env, reg) }
}

func startMCP(ctx context.Context, sys *System, s *runSettings, env tools.Env, reg *tools.Registry) error {
	plan := s.mcp
	if plan == nil || len(plan.servers) == 0 {
		return nil
	}
	var err error
	plan.once.Do(func() {
		plan.m = startServers(ctx, sys, s, plan, env.Environ)
		sys.mcp = plan.m
		for _, st := range plan.m.Statuses() {
			if st.State != mcp.StateFailed {
				continue
			}
			if st.Server.Required {
				err = &classedError{Class: ai.ClassRequired, Err: fmt.Errorf("%s; it is required (\"required\": true in %s), so the run stops before any request%s", st.Summary(), st.Server.Source, st.StderrBlock())}
				stopMCP(sys)
				return
			}
			fmt.Fprintf(sys.Stderr, "gopi: warning: %s; the run goes on without its tools%s\n", st.Summary(), st.StderrBlock())
		}
	})
	if err != nil {
		return err
	}
	if plan.m != nil && sys.mcp != nil {
		reg.AddSource(plan.m)
	}
	return nil
}

func startServers(ctx context.Context, sys *System, s *runSettings, plan *mcpPlan, environ []string) *mcp.Manager {
	opts := plan.opts
	opts.Environ = environ
	opts.Getenv = sys.getenv
	opts.Version = cmdVersion()
	opts.Report = func(st mcp.Status) {
		if st.State == mcp.StateDied {
			fmt.Fprintf(sys.Stderr, "gopi: warning: %s; its tools are withdrawn%s\n", st.Summary(), st.StderrBlock())
		} else {
			fmt.Fprintf(sys.Stderr, "gopi: warning: MCP server %s: %s\n", st.Server.Name, st.Reason)
		}
	}
	return mcp.Start(ctx, plan.servers, opts)
}

// stopMCP stops the servers started for this invocation: never left
// running when gopi exits.
func stopMCP(sys *System) {
	if sys.mcp == nil {
		return
	}
	if left := sys.mcp.Close(); len(left) > 0 {
		fmt.Fprintf(sys.Stderr, "gopi: warning: MCP server(s) %s did not end within the wait after SIGKILL\n", strings.Join(left, ", "))
	}
	sys.mcp = nil
}

// cmdVersion is gopi's version as MCP servers are told it.
func cmdVersion() string {
	info, ok := debug.ReadBuildInfo()
	return readBuildVersion(info, ok).Version
}
