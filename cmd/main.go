package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/internal/interrupt"
	"gopi/pkg/exitcode"
	"gopi/pkg/sandbox"
)

// Main runs gopi with args and returns the exit code.
func Main(args []string, sys System) (code int) {
	if len(args) > 0 && args[0] == sandbox.HelperArg { // a sandboxed command's helper, not the CLI
		return sandbox.RunHelper(args[1:], sys.Environ, sys.Stderr)
	}
	switch {
	case len(args) == 0 && sys.StdinTTY && sys.StdoutTTY:
		args = []string{"chat"} // bare gopi on a terminal talks
	case len(args) == 0 && !sys.StdinTTY:
		args = []string{"run"} // echo "fix it" | gopi: the prompt is on stdin
	}
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(sys.Stderr, "gopi: internal error: %v\n", p)
			code = exitcode.Internal
		}
	}()
	sys.Args, sys.Hosts = args, &interrupt.Kills{}
	root := newRootCmd(&sys)
	root.SetArgs(args)
	root.SetIn(sys.Stdin)
	root.SetOut(sys.Stdout)
	root.SetErr(sys.Stderr)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return exitcode.OK
	}
	var rep *reported
	if errors.As(err, &rep) {
		return rep.Code
	}
	class := cmdutil.ClassOf(err)
	fmt.Fprintf(sys.Stderr, "gopi: %v\n", err)
	return exitcode.Of(class, err)
}

func newRootCmd(sys *System) *cobra.Command {
	root := &cobra.Command{
		Use:           "gopi",
		Short:         "A headless coding agent in one binary",
		Long:          "gopi sends a prompt to a model that reads, edits and runs things through tools,\nand records every run in a session that later runs can resume from any entry.",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	one := onlyCommand(sys.Args)
	addRootRun(root, sys, one == nil)
	if one != nil {
		root.AddCommand(one(sys))
		root.CompletionOptions.DisableDefaultCmd = true
	} else {
		root.AddCommand(newRunCmd(sys, nil), newChatCmd(sys, nil), newVersionCmd(sys), newModelsCmd(sys), newSessionCmd(sys), newContextCmd(sys), newMCPCmd(sys), newRPCCmd(sys, nil), newACPCmd(sys, nil))
	}
	root.SetHelpCommand(newHelpCmd())
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			refuseUnknownSubcommand(c)
		}
	}
	cmdutil.UsageArgs(root)
	return root
}

// onlyCommand is the constructor of the command args start with, when
// they start with one's exact name: then that command is all the tree
// needs (its help lists no siblings; it takes none of bare gopi's flags),
// and building the others and bare gopi's flags was a tenth of a one-turn
// run. Anything else (no command, a flag first, help, completion, a typo
// that wants suggestions) gets the whole tree.
func onlyCommand(args []string) func(*System) *cobra.Command {
	if len(args) == 0 {
		return nil
	}
	switch args[0] {
	case "run":
		return func(sys *System) *cobra.Command { return newRunCmd(sys, nil) }
	case "chat":
		return func(sys *System) *cobra.Command { return newChatCmd(sys, nil) }
	case "version":
		return newVersionCmd
	case "models":
		return newModelsCmd
	case "session":
		return newSessionCmd
	case "context":
		return newContextCmd
	case "mcp":
		return newMCPCmd
	case "rpc":
		return func(sys *System) *cobra.Command { return newRPCCmd(sys, nil) }
	case "acp":
		return func(sys *System) *cobra.Command { return newACPCmd(sys, nil) }
	}
	return nil
}

// refuseUnknownSubcommand makes a command group (one that only holds
// subcommands) print its help when called alone and refuse an unknown
// subcommand as a usage error: without a Run of its own, cobra printed the
// help for "gopi session bogus" and exited 0.
func refuseUnknownSubcommand(c *cobra.Command) {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			var names []string
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			return usageErr("unknown command %q for %s (use %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
		}
		return c.Help()
	}
}

// newHelpCmd is "gopi help [command]"; an unknown topic is a usage error.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 || (target == c.Root() && len(args) > 0) {
				return usageErr("unknown help topic %q (see gopi --help)", strings.Join(args, " "))
			}
			return target.Help()
		},
		// gopi help <TAB> offers the commands below what is typed so far.
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
}
