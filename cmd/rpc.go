package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/internal/interrupt"
	"gopi/pkg/exitcode"
	"gopi/pkg/invocation"
	"gopi/pkg/rpc"
)

// rpcOptions are gopi rpc's flags: the agent's. json is run's --json
// with --mode rpc, which is refused.
type rpcOptions struct {
	agentOptions
	json bool
}

// newRPCCmd is gopi rpc; runF, when not nil, is called with the options
// in place of running (tests).
func newRPCCmd(sys *System, runF func(*cobra.Command, *rpcOptions) error) *cobra.Command {
	o := &rpcOptions{}
	c := &cobra.Command{
		Use:   "rpc [flags]",
		Short: "Serve pi's RPC protocol on stdin and stdout (for editors and other programs)",
		Long: `Keep one agent alive and drive it from another program with pi 1.6's RPC
protocol: one JSON command per line on stdin ({"id":"1","type":"prompt","message":"..."}),
one JSON object per line on stdout: the responses ({"id","type":"response","command",
"success","data"|"error"}) and the session's events as --mode events writes them.
Records end at LF only. Commands: prompt, steer, follow_up, abort, get_state,
get_messages, get_entries, get_tree, set_model, compact, new_session, switch_session,
fork, clone and the rest of pi's list; those gopi cannot do answer success false with
the reason. Closing stdin aborts a running run, keeps what it reached in the session and
exits 0; SIGINT, SIGTERM and SIGHUP do the same and exit 130.

The session flags are gopi run's: a new session unless --session, -c, --fork or
--session-id says otherwise; --leaf picks the entry to continue from, and
--session on a session with entries continues from its newest one, as pi's rpc
does. gopi run --mode rpc is the same.`,
		Example: `  gopi rpc --provider anthropic
  gopi rpc --session SESSION -c
  echo '{"type":"prompt","message":"hello"}' | gopi rpc --no-session`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c, o)
			}
			return runRPC(c.Context(), sys, c, o)
		},
	}
	o.agentOptions.AddFlags(c.Flags())
	registerAgentCompletions(c, sys)
	return c
}

// rpcLockWait is how long gopi rpc waits for another process to let go
// of the session it opens: a bridge such as pi-acp ends the previous
// process and starts the next on the same file at once (pi locks no file).
const rpcLockWait = 5 * time.Second

// runRPC builds the first Runtime as chat does and serves the protocol until
// stdin ends or a signal arrives.
func runRPC(ctx context.Context, sys *System, c *cobra.Command, o *rpcOptions) error {
	ctx, untrap := sys.Trap(ctx)
	defer untrap()
	// stdout is a pipe's, bounded once a run is cancelled; a stderr on
	// the same pipe is bounded with it.
	pipes := interrupt.NewPipes(sys.Stdout, sys.Stderr)
	defer pipes.Restore()
	sys.Stderr = pipes.Err
	if err := cmdutil.CheckConflicts(c.Flags()); err != nil {
		return err
	}
	if len(o.args) > 0 {
		return usageErr(`rpc mode takes no prompt arguments: send {"type":"prompt","message":"..."} on stdin`)
	}
	if o.json {
		return usageErr("--json and --mode rpc ask for different outputs: give one of them")
	}
	h, err := sys.Conversation(ctx, agent(c, &o.agentOptions), rpcLockWait, nil)
	if err != nil {
		return err
	}
	defer h.Close()
	host := rpc.NewHost(h.Assembly, rpc.HostConfig{Catalog: h.Assembly.Catalog(), MaxPrompt: h.Settings.MaxPromptBytes, MaxPromptOrigin: h.Settings.Origin("maxPromptBytes"),
		NoSession: o.noSession, ExportDest: func(out, file string) (string, error) { return exportDest(sys, "outputPath", out, file) }})
	first := host.First()
	invocation.Warn(sys.Stderr, first.Runtime.Warnings())
	err = rpc.NewServer(pipes.Out, sys.Stderr, first, host, rpc.Options{Thinking: h.Assembly.Thinking(), Now: sys.Now, Bound: pipes.Bounder(),
		MaxLine: h.Settings.MaxPromptBytes + rpcLineRoom}).Serve(ctx, sys.Stdin)
	if code := rpc.ExitCode(sys.Stderr, ctx.Err() != nil, err); code != exitcode.OK {
		return &reported{Code: code}
	}
	return nil
}

// rpcLineRoom is what a command line may hold beyond maxPromptBytes:
// room for images (fourteen at the 4.5 MiB of base64 a model takes) and
// the text's JSON escapes.
const rpcLineRoom = 64 << 20
