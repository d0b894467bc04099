package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"gopi/internal/buildinfo"
	"gopi/internal/cmdutil"
	"gopi/pkg/acp"
	"gopi/pkg/exitcode"
	"gopi/pkg/session"
)

// acpOptions are gopi acp's flags: the agent's. json is run's --json
// with --mode acp, which is refused.
type acpOptions struct {
	agentOptions
	json bool
}

// newACPCmd is gopi acp; runF, when not nil, is called with the options
// in place of running (tests).
func newACPCmd(sys *System, runF func(*cobra.Command, *acpOptions) error) *cobra.Command {
	o := &acpOptions{}
	c := &cobra.Command{
		Use:   "acp [flags]",
		Short: "Serve the Agent Client Protocol on stdin and stdout (Zed, JetBrains and other editors)",
		Long: `Speak the Agent Client Protocol (version 1): JSON-RPC 2.0 messages, one per line, on
stdin and stdout, as editors start coding agents. Each session/new is a gopi session in
the folder the editor names, with that folder's settings, resources and hooks, as gopi
run would have them there, and the MCP servers the editor passes started beside the
settings' own. session/load opens a session by id (session/list lists them) or by its
file, gopi's or pi's, and replays it; session/prompt streams the answer as session/update
notifications; session/cancel aborts a prompt as SIGINT aborts a run. The model and the
thinking level are the session's config options, the sandbox mode its mode.

API keys come from the environment and settings, as for every gopi run; the flags are
gopi run's and apply to every session. Diagnostics go to stderr. Closing stdin cancels
every prompt, keeps what they reached and exits 0. gopi run --mode acp is the same.`,
		Example: `  gopi acp
  gopi acp --provider anthropic --model claude-sonnet-4-5`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c, o)
			}
			return runACP(c.Context(), sys, c, o)
		},
	}
	o.agentOptions.AddFlags(c.Flags())
	registerAgentCompletions(c, sys)
	return c
}

// runACP serves ACP until stdin ends or a signal arrives.
func runACP(ctx context.Context, sys *System, c *cobra.Command, o *acpOptions) error {
	ctx, untrap := sys.Trap(ctx)
	defer untrap()
	if err := cmdutil.CheckConflicts(c.Flags()); err != nil {
		return err
	}
	if len(o.args) > 0 {
		return usageErr("acp mode takes no prompt arguments: the editor sends them (session/prompt)")
	}
	if o.json {
		return usageErr("--json and --mode acp ask for different outputs: give one of them")
	}
	for _, f := range []string{"session", "continue", "fork", "session-id", "leaf"} {
		if c.Flags().Changed(f) {
			return usageErr("--%s: in acp mode the editor chooses the session (session/new, session/load)", f)
		}
	}
	srv := acp.NewServer(sys.Stdout, acpHost(sys, c, &o.agentOptions), acp.Options{Version: buildinfo.Read().Version, Diag: sys.Stderr, Now: sys.Now})
	if err := srv.Serve(ctx, sys.Stdin); err != nil {
		fmt.Fprintf(sys.Stderr, "gopi: writing the output failed: %v\n", err)
		return &reported{Code: exitcode.Internal}
	}
	if ctx.Err() != nil {
		return &reported{Code: exitcode.Interrupted}
	}
	return nil
}

// acpOpener opens an ACP session's Assembly as gopi run would in its
// folder: the settings read there through the command's flags, the
// client's MCP servers started beside the settings' own.
func acpOpener(sys *System, c *cobra.Command, o *agentOptions) func(context.Context, acp.Opening) (*acp.Assembled, error) {
	return func(ctx context.Context, op acp.Opening) (*acp.Assembled, error) {
		want := *o
		want.cwd = op.Cwd
		if op.File != "" {
			want.session, want.cont = op.File, true
		}
		if op.Sandbox != "" {
			want.sandbox = setString{v: op.Sandbox, set: true}
		}
		h, err := sys.Conversation(ctx, agent(c, &want), 0, op.MCP())
		if err != nil {
			return nil, err
		}
		return &acp.Assembled{Assembly: h.Assembly, Catalog: h.Assembly.Catalog(), MaxPrompt: h.Settings.MaxPromptBytes, Close: h.Close}, nil
	}
}

// acpHost is ACP's host: each session an Assembly of its own folder.
func acpHost(sys *System, c *cobra.Command, o *agentOptions) *acp.AssemblyHost {
	return acp.NewHost(acp.HostConfig{
		Open: acpOpener(sys, c, o),
		Root: func(cwd string) (string, error) {
			root, _, err := sys.Sessions(cwd)
			return root, err
		},
		List: func(cwd string) ([]session.Info, error) {
			root, dir, err := sys.Sessions(cwd)
			if err != nil {
				return nil, err
			}
			return listSessions(root, dir, cwd == "")
		},
		Diag: sys.Stderr,
	})
}
