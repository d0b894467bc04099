package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"gopi/pkg/assemble"
	"gopi/pkg/resources"
	"gopi/pkg/settings"
	"gopi/pkg/tools"
)

func newContextCmd(sys *System) *cobra.Command {
	o := &agentOptions{}
	c := &cobra.Command{
		Use:   "context",
		Short: "Print the assembled system prompt and every resource found or skipped",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := readContextSettings(sys, c, o)
			if err != nil {
				return err
			}
			cat, err := discover(sys, s, o)
			if err != nil {
				return err
			}
			if err := printContext(sys.Stdout, s.cfg, cat); err != nil {
				return err
			}
			if err := printMCPContext(sys.Stdout, s.mcp); err != nil {
				return err
			}
			ss, err := readSandbox(&o.sandboxFlags, s.cfg, s.cwd)
			if err != nil {
				return err
			}
			g, err := assemble.NewGuard(ss, assemble.NewSpillDir(), sys.env(c.Context()))
			if err != nil {
				return err
			}
			printSandboxContext(sys.Stdout, g.Policy(), sys.Environ)
			return nil
		},
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

// discover loads the resources of a run (or of gopi context); a
// --system-prompt or systemPrompt naming a file that is refused is a
// usage error naming where the value came from.
func discover(sys *System, s *runSettings, o *agentOptions) (*resources.Catalog, error) {
	cat, err := resources.Load(resources.Options{
		Cwd: s.cwd, Home: sys.getenv("HOME"), GopiHome: s.cfg.Home(), Now: sys.Now,
		SystemPrompt: s.systemPrompt, AppendSystemPrompt: s.appendSystemPrompt,
		ActiveTools: s.tools, NoSkills: o.noSkills, NoTemplates: o.noTempl, NoContextFiles: o.noContext, Bare: o.bare,
	})
	var pe *resources.PromptFileError
	switch {
	case errors.As(err, &pe):
		key := "systemPrompt"
		if pe.Kind == resources.KindAppend {
			key = "appendSystemPrompt"
		}
		return nil, usageErr("%s names %s, which %v: give a regular file of at most 1 MiB, or the text itself", s.cfg.Origin(key), pe.Path, pe.Err)
	case err != nil:
		return nil, usageErr("%v", err)
	}
	return cat, nil
}

func printContext(w io.Writer, c *settings.Settings, cat *resources.Catalog) error {
	fmt.Fprintf(w, "# System prompt\n\n%s\n\n# Settings files (merged in this order: a later one overrides an earlier one key by key)\n", cat.SystemPrompt())
	for _, f := range c.Files() {
		fmt.Fprintf(w, "- %s\n", f)
	}
	fmt.Fprintln(w, "\n# Resources found")
	for _, it := range cat.Found {
		name := ""
		if it.Name != "" {
			name = " " + it.Name
		}
		fmt.Fprintf(w, "- %s%s (%s) %s\n", it.Kind, name, it.Source, it.Path)
	}
	fmt.Fprintln(w, "\n# Skipped")
	for _, sk := range cat.Skipped {
		fmt.Fprintf(w, "- %s\n", sk)
	}
	for _, wa := range cat.Warnings {
		fmt.Fprintf(w, "- warning: %s\n", wa)
	}
	return nil
}
