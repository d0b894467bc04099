package cmd

import (
	"github.com/spf13/cobra"

	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

func newContextCmd(sys *System) *cobra.Command {
	o := &agentOptions{}
	c := &cobra.Command{
		Use:   "context",
		Short: "Print the assembled system prompt and every resource found or skipped",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runContext(sys, c, o) },
	}
	f := c.Flags()
	f.String("system-prompt", "", "system prompt text, or a file holding it")
	f.String("append-system-prompt", "", "text (or a file) appended to the system prompt")
	f.StringSlice("tools", tools.DefaultNames, "tools the prompt is built for")
	f.BoolVar(&o.noTools, "no-tools", false, "build the prompt for no tools")
	f.StringArrayVar(&o.mcpConfig, "mcp-config", nil, "also list the MCP servers of this file")
	f.BoolVar(&o.noMCP, "no-mcp", false, "list no MCP server")
	f.StringVar(&o.cwd, "cwd", "", "working directory (default: the current one)")
	f.BoolVar(&o.bare, "bare", false, "discover nothing")
	f.BoolVar(&o.noSkills, "no-skills", false, "do not load skills")
	f.BoolVar(&o.noTempl, "no-prompt-templates", false, "do not load prompt templates")
	f.BoolVar(&o.noContext, "no-context-files", false, "do not load AGENTS.md or CLAUDE.md files")
	o.sandboxFlags.AddFlags(f)
	return c
}

// runContext prints the system prompt, the settings files, the
// resources found and skipped, the MCP servers a run would start and the
// sandbox, read as a run reads them (settings.Context).
func runContext(sys *System, c *cobra.Command, o *agentOptions) error {
	cfg, ao, err := sys.Settings(agent(c, o))
	if err != nil {
		return err
	}
	set, err := cfg.Context(ao)
	if err != nil {
		return err
	}
	cat, err := assemble.LoadCatalog(set, sys.Env(c.Context()))
	if err != nil {
		return err
	}
	cat.Describe(sys.Stdout, cfg.Files())
	if err := mcp.WritePlan(sys.Stdout, set.MCP.Servers); err != nil {
		return err
	}
	ss, err := cfg.Sandbox(set.Cwd, *ao.Sandbox)
	if err != nil {
		return err
	}
	g, err := assemble.NewGuard(ss, assemble.NewSpillDir(), sys.Env(c.Context()))
	if err != nil {
		return err
	}
	g.Policy().Describe(sys.Stdout, sys.Environ)
	return nil
}
