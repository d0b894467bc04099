package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

func newMCPCmd(sys *System) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Inspect the MCP servers runs start",
	}
	c.AddCommand(newMCPListCmd(sys), newMCPConformanceCmd(sys))
	refuseUnknownSubcommand(c)
	return c
}

func newMCPListCmd(sys *System) *cobra.Command {
	o := &agentOptions{}
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "Start every configured MCP server, then list each with its state and tools",
		Long: `Start every configured MCP server as a run would (settings' "mcpServers",
mcp.json, --mcp-config), list each with whether it started (and why not,
with the tail of its stderr) and its tools, then stop them. A tool that
--tools or --exclude-tools would not offer is marked "(not offered)", and
so is one whose name an earlier server's tool already has, saying which.
Exits 10 when an enabled server did not start, 130 when interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			set, err := sys.AssemblySettings(agent(c, o))
			if err != nil {
				return err
			}
			env := assemble.ScrubEnv(sys.Environ, assemble.SecretNames(set.Model.Providers), "")
			// SIGINT, SIGTERM and SIGHUP end the servers' start; they are
			// stopped, and gopi exits 130.
			ctx, stop := sys.Trap(c.Context())
			defer stop()
			m := assemble.StartMCP(sys.Env(ctx), set.MCP, env)
			sts := m.Statuses()
			if left := m.Close(); len(left) > 0 {
				fmt.Fprintf(sys.Stderr, "gopi: warning: MCP server(s) %s did not end within the wait after SIGKILL\n", strings.Join(left, ", "))
			}
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted: the MCP servers were stopped: %w", context.Canceled)
			}
			if asJSON {
				err = mcp.WriteJSON(sys.Stdout, sts)
			} else {
				err = mcp.WriteList(sys.Stdout, sts)
			}
			if err != nil {
				return err
			}
			for _, st := range sts {
				if st.State == mcp.StateFailed {
					return &assemble.Error{Class: ai.ClassRequired, Err: fmt.Errorf("MCP server %s did not start", st.Server.Name)}
				}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&o.mcpConfig, "mcp-config", nil, "also the MCP servers of this file; may be repeated")
	f.StringSlice("tools", tools.DefaultNames, "the tool selection to mark MCP tools by")
	f.StringSliceVar(&o.excludeTools, "exclude-tools", nil, "tools not offered: names or patterns (*)")
	f.StringVar(&o.cwd, "cwd", "", "working directory (default: the current one)")
	f.BoolVar(&o.bare, "bare", false, "read no settings files or mcp.json: only --mcp-config's servers")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per server")
	f.Int("max-steps", 1, "")
	_ = f.MarkHidden("max-steps")
	return c
}
