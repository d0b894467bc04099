package cmd

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/pkg/chat"
	"gopi/pkg/exitcode"
	"gopi/pkg/invocation"
)

// chatOptions are gopi chat's flags: the agent's (run's without its
// output flags) plus the display.
type chatOptions struct {
	agentOptions
	noColor bool
}

// newChatCmd is gopi chat; runF, when not nil, is called with the options
// in place of running (tests).
func newChatCmd(sys *System, runF func(*cobra.Command, *chatOptions) error) *cobra.Command {
	o := &chatOptions{}
	c := &cobra.Command{
		Use:   "chat [flags] [PROMPT...]",
		Short: "Talk with the agent in the terminal",
		Long: `Talk with the agent in the terminal: one prompt per line, the answer streams as it
arrives, tool calls show as one line each. While a run is active a typed line steers
it and Alt-Enter queues a follow-up; Ctrl-C aborts the run. /help lists the commands.
PROMPT, the words joined by spaces, is sent at once as the first message; an
@FILE argument attaches a file to it as gopi run does (text inlined with its
path, an image attached; a missing file is a usage error).

Bare gopi starts a chat when stdin and stdout are terminals. For scripts and pipes
use gopi run.`,
		Example: `  gopi chat
  gopi chat "why does the build fail?"
  gopi chat -c                      # continue the newest session of this folder
  gopi chat --session ID --leaf ENTRY`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.args = args
			if runF != nil {
				return runF(c, o)
			}
			return runChat(c.Context(), sys, c, o)
		},
	}
	o.agentOptions.AddFlags(c.Flags())
	c.Flags().BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	registerAgentCompletions(c, sys)
	return c
}

// runChat refuses without a terminal, then prepares the first Runtime as
// gopi run does and hands the terminal to the interactive mode.
func runChat(ctx context.Context, sys *System, c *cobra.Command, o *chatOptions) error {
	ctx, untrap := sys.Trap(ctx)
	defer untrap()
	if err := cmdutil.CheckConflicts(c.Flags()); err != nil {
		return err
	}
	if !sys.StdinTTY || !sys.StdoutTTY {
		return usageErr("gopi chat needs a terminal on stdin and stdout; for pipes and scripts use gopi run " +
			"(e.g. gopi run \"fix the tests\", or echo PROMPT | gopi run)")
	}
	h, err := sys.Conversation(ctx, agent(c, &o.agentOptions), 0, nil)
	if err != nil {
		return err
	}
	defer h.Close()
	first := chat.Opened{Runtime: h.Assembly.Runtime(), Model: h.Assembly.Model().Info, File: h.Assembly.File()}
	invocation.Warn(sys.Stderr, first.Runtime.Warnings())
	term, err := openTerminal(sys, filepath.Join(h.Settings.Home, "chat_history"))
	if err != nil {
		return err
	}
	defer term.Close()
	stop := context.AfterFunc(ctx, term.Interrupt)
	defer stop()
	err = chat.New(term, term.Out(), first, chat.AssemblyDeps(h.Assembly, h.Assembly.Catalog().Expand),
		chat.Options{Color: !o.noColor && sys.Getenv("NO_COLOR") == "", Width: term.Width, Thinking: h.Assembly.Thinking(), Now: sys.Now,
			First: h.Words, FirstFiles: h.Files, FirstImages: h.Images, Sandbox: h.Assembly.Guard().Policy().Banner(sys.Getenv("HOME"))}).Run(ctx)
	if ctx.Err() != nil {
		return &reported{Code: exitcode.Interrupted}
	}
	return err
}
