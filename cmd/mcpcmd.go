package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
			set, err := agentSettings(sys, c, o)
			if err != nil {
				return err
			}
			env := assemble.ScrubEnv(sys.Environ, assemble.SecretNames(set.Model.Providers), "")
			// SIGINT, SIGTERM and SIGHUP end the servers' start; they are
			// stopped, and gopi exits 130.
			ctx, stop := trapSignals(c.Context(), sys)
			defer stop()
			m := assemble.StartMCP(sys.env(ctx), set.MCP, env)
			sts := m.Statuses()
			if left := m.Close(); len(left) > 0 {
				fmt.Fprintf(sys.Stderr, "gopi: warning: MCP server(s) %s did not end within the wait after SIGKILL\n", strings.Join(left, ", "))
			}
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted: the MCP servers were stopped: %w", context.Canceled)
			}
			if asJSON {
				err = writeMCPJSON(sys.Stdout, sts)
			} else {
				err = writeMCPList(sys.Stdout, sts)
			}
			if err != nil {
				return err
			}
			for _, st := range sts {
				if st.State == mcp.StateFailed {
					return &classedError{Class: ai.ClassRequired, Err: fmt.Errorf("MCP server %s did not start", st.Server.Name)}
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

func writeMCPList(w io.Writer, sts []mcp.Status) error {
	if len(sts) == 0 {
		_, err := fmt.Fprintln(w, `No MCP servers configured: declare them under "mcpServers" in settings or mcp.json, or give --mcp-config FILE.`)
		return err
	}
	for _, st := range sts {
		fmt.Fprintf(w, "%s (%s: %s) %s\n", st.Server.Name, st.Server.Transport(), st.Server.Target(), describeState(st))
		if st.Stderr != "" {
			fmt.Fprintf(w, "  stderr:\n    %s\n", strings.ReplaceAll(st.Stderr, "\n", "\n    "))
		}
		for _, t := range st.Tools {
			mark := ""
			switch {
			case t.Note != "":
				mark = " (not offered: " + t.Note + ")"
			case !t.Selected:
				mark = " (not offered)"
			}
			desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
			fmt.Fprintf(w, "  %s%s  %s\n", t.Name, mark, desc)
		}
		fmt.Fprintf(w, "  from %s\n", st.Server.Source)
	}
	return nil
}

func describeState(st mcp.Status) string {
	switch st.State {
	case mcp.StateStarted:
		return fmt.Sprintf("started, %d tool(s)", len(st.Tools))
	case mcp.StateDisabled:
		return "disabled"
	}
	return string(st.State) + ": " + st.Reason
}

// mcpServerJSON is one line of gopi mcp list --json.
type mcpServerJSON struct {
	Name      string         `json:"name"`
	Transport string         `json:"transport"`
	Target    string         `json:"target"`
	Required  bool           `json:"required"`
	State     mcp.State      `json:"state"`
	Reason    string         `json:"reason,omitempty"`
	Stderr    string         `json:"stderr,omitempty"`
	Source    string         `json:"source"`
	Tools     []mcp.ToolInfo `json:"tools"`
}

func writeMCPJSON(w io.Writer, sts []mcp.Status) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, st := range sts {
		line := mcpServerJSON{Name: st.Server.Name, Transport: st.Server.Transport(), Target: st.Server.Target(), Required: st.Server.Required,
			State: st.State, Reason: st.Reason, Stderr: st.Stderr, Source: st.Server.Source, Tools: st.Tools}
		if line.Tools == nil {
			line.Tools = []mcp.ToolInfo{}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// printMCPContext is gopi context's section on MCP servers: those a run
// would start, not started here (gopi mcp list starts them).
func printMCPContext(w io.Writer, servers []mcp.Server) error {
	fmt.Fprintln(w, "\n# MCP servers (a run starts them; gopi mcp list starts them and lists their tools)")
	if len(servers) == 0 {
		_, err := fmt.Fprintln(w, "- none")
		return err
	}
	for _, s := range servers {
		var notes []string
		if s.Disabled {
			notes = append(notes, "disabled")
		}
		if s.Required {
			notes = append(notes, "required")
		}
		note := ""
		if len(notes) > 0 {
			note = " [" + strings.Join(notes, ", ") + "]"
		}
		fmt.Fprintf(w, "- %s (%s: %s)%s from %s\n", s.Name, s.Transport(), s.Target(), note, s.Source)
	}
	return nil
}
