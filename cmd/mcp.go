package cmd

import (
	"runtime/debug"

	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"gopi/pkg/settings"
)

// mcpPlan is the servers a run starts.
type mcpPlan struct {
	servers []mcp.Server
	opts    mcp.Options // without Environ, Getenv and Report: the run's
}

// readMCP reads the MCP servers of one invocation (settings.MCP):
// --bare reads no settings folder; --no-mcp and --no-tools start none.
func readMCP(c *settings.Settings, o *agentOptions, cwd string) (*mcpPlan, error) {
	m, err := c.MCP(settings.MCPRequest{Cwd: cwd, Bare: o.bare, None: o.noMCP || o.noTools, Configs: o.mcpConfig, Exclude: o.excludeTools})
	if err != nil {
		return nil, err
	}
	return &mcpPlan{servers: m.Servers, opts: m.Options}, nil
}

// settings are the servers to start and the selection, as assemble
// takes them.
func (p *mcpPlan) settings() assemble.MCPSettings {
	if p == nil {
		return assemble.MCPSettings{}
	}
	return assemble.MCPSettings{Servers: p.servers, Select: p.opts.Select, StartTimeout: p.opts.StartTimeout, CallTimeout: p.opts.CallTimeout}
}

// cmdVersion is gopi's version as MCP servers are told it.
func cmdVersion() string {
	info, ok := debug.ReadBuildInfo()
	return readBuildVersion(info, ok).Version
}
