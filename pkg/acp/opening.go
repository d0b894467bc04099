package acp

import "gopi/pkg/mcp"

// MCP are the client's MCP servers of op as the Assembly starts them,
// each in the session's folder.
func (op Opening) MCP() []mcp.Server {
	more := make([]mcp.Server, 0, len(op.Servers))
	for _, s := range op.Servers {
		more = append(more, mcp.Server{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL,
			Headers: s.Headers, Cwd: op.Cwd, Source: "the editor's session"})
	}
	return more
}
