package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/pkg/invocation"
)

// runOptions are gopi run's flags: the agent's and its own output flags.
type runOptions struct {
	agentOptions
	outputFlags
}

// newRunCmd is gopi run; runF, when not nil, is called with the options
// in place of running (tests).
func newRunCmd(sys *System, runF func(*cobra.Command, *runOptions) error) *cobra.Command {
	o := &runOptions{}
	c := &cobra.Command{
		Use:   "run [flags] [@FILE...] [PROMPT...]",
		Short: "Run one prompt, then exit",
		Long: `Run one prompt through the model and its tools, record it in a session, and exit.

As in pi, each PROMPT argument is a message of its own (quote a prompt of
several words): the first is the prompt, each further one is sent as a new
prompt once the one before it ended without an error. An @FILE argument
attaches a file to the first prompt: text is inlined as <file name="PATH">
TEXT </file>, a png, jpeg, gif or webp image is attached as an image; a
missing file is a usage error. When stdin is not a terminal it is read to its
end: alone it is the prompt; otherwise it comes first, as pi puts it, then a
blank line, the @FILE text and the first PROMPT (git diff | gopi run "review
this").

With --json the output is one line, the result object (also the last line of
--mode events):
  type          "result"
  reason        stop, length, maxSteps, budgetTokens, budgetUsd, schema, aborted, error
  isError       false only for an answer (stop, length) that satisfied --output-schema if given
  text          the final answer's text
  structured    the answer as JSON, with --output-schema, once valid
  steps         model requests made
  messages      the messages the run added
  files         [{path, change}] the run's tools created, modified or deleted
  filesInexact  true when files may miss changes (a large tree without git)
  session       {id, file, leafId}; --leaf leafId continues from the answer
  usage         tokens and cost of the run's answers and compactions
  usageByModel  [{provider, model, usage}] when the run used several models
  sandbox       the run's sandbox: read-only, workspace-write or off
  denials       [{tool, operation, target, rule, allow}] what the sandbox or permissions refused
  durationMs    wall time
  error         {class, message} on failure; the class decides the exit code`,
		Example: `  gopi run --provider faux "look around"
  gopi run --json "fix the failing test" | jq -r .session.leafId
  gopi run --session SESSION --leaf LEAF "and now the docs"`,
		RunE: func(c *cobra.Command, args []string) error {
			o.args = args
			if runF != nil {
				return runF(c, o)
			}
			return runRun(c.Context(), sys, c, o)
		},
	}
	c.SetFlagErrorFunc(runFlagError(sys))
	o.agentOptions.AddFlags(c.Flags())
	o.outputFlags.AddFlags(c.Flags())
	registerAgentCompletions(c, sys)
	return c
}

// runRun is gopi run (pkg/invocation's Run), or the server --mode rpc
// and acp ask for.
func runRun(ctx context.Context, sys *System, c *cobra.Command, o *runOptions) error {
	switch o.mode.v {
	case "rpc":
		return runRPC(ctx, sys, c, &rpcOptions{agentOptions: o.agentOptions, json: o.json})
	case "acp":
		return runACP(ctx, sys, c, &acpOptions{agentOptions: o.agentOptions, json: o.json})
	}
	m, err := cmdutil.PickMode(o.mode.v, o.mode.set, o.json)
	if err == nil {
		err = cmdutil.CheckConflicts(c.Flags())
	}
	return sys.Run(ctx, invocation.RunOptions{Agent: agent(c, &o.agentOptions), Mode: m, Refused: err,
		NoStdin: o.noStdin, PrintSystemPrompt: o.printSP, OutputSchema: o.outputSchema, OutputRetries: o.outputRetries})
}
