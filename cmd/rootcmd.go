package cmd

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/pkg/ai"
	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
)

// rootLong is bare gopi's help: what it does without a command.
const rootLong = `gopi sends a prompt to a model that reads, edits and runs things through tools,
and records every run in a session that later runs can resume from any entry.

Without a command gopi takes the flags of run and chat. When stdin and stdout
are terminals it talks (gopi chat), with PROMPT as the first message if given;
otherwise it runs the prompt, from PROMPT (each argument a prompt of its own,
as in pi) or stdin, and exits (gopi run). A flag
only run has (--json, --mode, -p, --timeout, ...) always runs. A lone word is
taken for a mistyped command, not a prompt, and so is a first word close to a
command's name followed by more (gopi sesion list): gopi run WORDS, gopi --
WORDS or -p sends them.`

// rootOptions are bare gopi's flags: the union of run's and chat's, and
// pi's --version.
type rootOptions struct {
	agentOptions
	outputFlags
	noColor bool
	version bool
}

// addRootRun makes bare gopi a run or a chat, as pi is: it takes the
// union of their flags and picks by the terminal and the flags given.
// Without flags (a command below runs) it sets only what the commands
// below inherit: the usage template and the flag error function.
func addRootRun(root *cobra.Command, sys *System, flags bool) {
	o := &rootOptions{}
	root.Use = "gopi [flags] [PROMPT...]"
	root.Long = rootLong
	root.Example = `  gopi --provider faux                 # on a terminal: a chat with the offline model
  gopi "fix the failing test"          # on a terminal: a chat that starts with this prompt
  git diff | gopi "review this"        # not a terminal: gopi run
  gopi --json "run the tests" | jq .text`
	root.Args = cobra.ArbitraryArgs
	root.SuggestionsMinimumDistance = 2
	root.RunE = func(c *cobra.Command, args []string) error {
		return runRoot(c.Context(), sys, c, o, args)
	}
	if flags {
		f := root.Flags()
		o.agentOptions.AddFlags(f)
		o.outputFlags.AddFlags(f)
		f.BoolVar(&o.noColor, "no-color", false, "no colours in a chat (also when NO_COLOR is set)")
		f.BoolVarP(&o.version, "version", "v", false, "print gopi's version and exit (as gopi version)")
		registerAgentCompletions(root, sys)
	}
	cmdutil.SetExitHelp(root)
	// A flag error of bare gopi is reported in the mode its arguments ask
	// for, as run's is; a command below keeps the plain usage error.
	runFlagErr := runFlagError(sys)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c == root {
			return runFlagErr(c, err)
		}
		return cmdutil.FlagUsageErr(c, err)
	})
}

// runRoot is bare gopi with flags or words (Main turns bare gopi without
// either into chat or run itself).
func runRoot(ctx context.Context, sys *System, c *cobra.Command, o *rootOptions, args []string) error {
	if o.version { // pi's --version
		return printVersion(sys, false)
	}
	if len(args) == 0 && c.Flags().NFlag() == 0 {
		return c.Help() // stdout is not a terminal and nothing asked for
	}
	chat := sys.StdinTTY && sys.StdoutTTY && !anyChanged(c, runOnlyFlags)
	if err := refuseCommandLike(c, args, o.print); err != nil {
		if chat {
			return err
		}
		return reportUsage(sys, c, err)
	}
	o.args = args
	if chat {
		return runChat(ctx, sys, c, &chatOptions{agentOptions: o.agentOptions, noColor: o.noColor})
	}
	return runRun(ctx, sys, c, &runOptions{agentOptions: o.agentOptions, outputFlags: o.outputFlags})
}

// reportUsage reports a usage error of what would have been a run in the
// output mode the flags ask for: json and events still get their one
// result object.
func reportUsage(sys *System, c *cobra.Command, err error) error {
	m, _ := cmdutil.OutputMode(c.Flags()) // --json with another --mode: json, as run reports it
	if m != mode.JSON && m != mode.Events {
		return err
	}
	out := mode.IO{Out: sys.Stdout, Err: sys.Stderr}
	if werr := mode.WriteFailure(out, m, ai.ClassUsage, err, nil, nil, 0); werr != nil {
		return werr
	}
	return &reported{Code: exitcode.Usage}
}

func anyChanged(c *cobra.Command, names []string) bool {
	for _, n := range names {
		if c.Flags().Changed(n) {
			return true
		}
	}
	return false
}

// commandLike is a word that could be a command's name.
var commandLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`) })

// refuseCommandLike refuses words that look like a mistyped command as
// prompts: a lone word ("gopi sesion", "gopi frobnicate"), or a first word
// close to a command's name followed by more ("gopi sesion list", which
// would send two prompts). Words after "--", or with pi's -p (printFlag),
// are prompts; "gopi run WORDS" sends them too.
func refuseCommandLike(c *cobra.Command, args []string, printFlag bool) error {
	if len(args) == 0 || !commandLike().MatchString(args[0]) || c.ArgsLenAtDash() == 0 {
		return nil
	}
	if printFlag {
		return nil
	}
	s := c.SuggestionsFor(args[0])
	if len(args) > 1 {
		if len(s) == 0 {
			return nil
		}
		return usageErr("unknown command %q for gopi; did you mean %s? (gopi --help lists the commands; to send the words as prompts: gopi run -- %s)",
			args[0], strings.Join(cmdutil.QuoteAll(s), " or "), strings.Join(args, " "))
	}
	hint := ""
	if len(s) > 0 {
		hint = "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageErr("unknown command %q for gopi%s (gopi --help lists the commands; to send one word as a prompt: gopi run %s)",
		args[0], hint, args[0])
}
