package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/invocation"
	"gopi/pkg/session"
	"gopi/pkg/settings"
	"gopi/pkg/tools"
)

// Shell completion of flag values (gopi completion bash|zsh|fish|powershell
// writes the script; the shell asks through cobra's hidden __complete).
// A completion reads what the command line already holds (--provider,
// --session, --cwd, --bare) and the settings, never writes anything, and
// offers nothing rather than fail.

// registerAgentCompletions completes the values of the flags
// addAgentFlags adds, on c. Only a completion request registers them:
// cobra keeps them in a map of its own for the life of the process.
func registerAgentCompletions(c *cobra.Command, sys *System) {
	if len(sys.Args) == 0 || (sys.Args[0] != cobra.ShellCompRequestCmd && sys.Args[0] != cobra.ShellCompNoDescRequestCmd) {
		return
	}
	funcs := map[string]cmdutil.CompleteFunc{
		"provider": func(c *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeProviders(sys, c), cmdutil.NoFiles
		},
		"model": func(c *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeModels(sys, c)
		},
		"thinking": func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeThinking(), cmdutil.NoFiles | cobra.ShellCompDirectiveKeepOrder
		},
		"tools": func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return tools.CompleteList(typed, true), cmdutil.NoFiles | cobra.ShellCompDirectiveNoSpace
		},
		"session": func(c *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeSessions(sys, c, typed)
		},
		"fork": func(c *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeSessions(sys, c, typed)
		},
		"leaf": func(c *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeLeaves(sys, c, typed), cmdutil.NoFiles | cobra.ShellCompDirectiveKeepOrder
		},
		"fsync": cobra.FixedCompletions([]cobra.Completion{"always", "never"}, cmdutil.NoFiles),
		"sandbox": cobra.FixedCompletions([]cobra.Completion{
			cobra.CompletionWithDesc("workspace-write", "write under the working folder and --add-dir (default)"),
			cobra.CompletionWithDesc("read-only", "write only the private temp folder"),
			cobra.CompletionWithDesc("off", "no sandbox"),
		}, cmdutil.NoFiles|cobra.ShellCompDirectiveKeepOrder),
	}
	if c.Flags().Lookup("exclude-tools") != nil {
		funcs["exclude-tools"] = func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return tools.CompleteList(typed, false), cmdutil.NoFiles | cobra.ShellCompDirectiveNoSpace
		}
	}
	if c.Flags().Lookup("mode") != nil {
		funcs["mode"] = cobra.FixedCompletions([]cobra.Completion{
			cobra.CompletionWithDesc("print", "the answer"),
			cobra.CompletionWithDesc("json", "one result object"),
			cobra.CompletionWithDesc("events", "a JSON line per event"),
		}, cmdutil.NoFiles)
	}
	for name, f := range funcs {
		if err := c.RegisterFlagCompletionFunc(name, f); err != nil {
			panic(fmt.Sprintf("completion of --%s: %v", name, err)) // a flag renamed without its completion
		}
	}
}

// completionSettings reads the settings as the command line would (--cwd,
// --bare), or nil when they cannot be read.
func completionSettings(sys *System, c *cobra.Command) *settings.Settings {
	cwd, err := sys.Cwd(cmdutil.FlagString(c, "cwd"))
	if err != nil {
		return nil
	}
	bare, _ := c.Flags().GetBool("bare")
	cfg, err := sys.LoadSettings(settings.PFlags(c.Flags()), cwd, bare)
	if err != nil {
		return nil
	}
	return cfg
}

func completeProviders(sys *System, c *cobra.Command) []cobra.Completion {
	return cmdutil.Offer(assemble.ProviderCandidates(completionSettings(sys, c).DeclaredProviders()))
}

// completeModels offers the ids of --provider's models when it was given,
// else provider/id for every model of the catalog and of the providers
// settings declare. A faux model is a script file.
func completeModels(sys *System, c *cobra.Command) ([]cobra.Completion, cobra.ShellCompDirective) {
	prov := ""
	if c.Flags().Changed("provider") {
		prov = cmdutil.FlagString(c, "provider")
	}
	if prov == "faux" {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return cmdutil.Offer(assemble.ModelCandidates(completionSettings(sys, c).DeclaredProviders(), prov)), cmdutil.NoFiles
}

func completeThinking() []cobra.Completion {
	out := make([]cobra.Completion, 0, len(ai.ThinkingLevels))
	for _, l := range ai.ThinkingLevels {
		out = append(out, string(l))
	}
	return out
}

// completeSessions offers the ids of this folder's sessions, newest
// first, with when they changed and how they began; something that looks
// like a path completes as a file name (.jsonl files and folders).
func completeSessions(sys *System, c *cobra.Command, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
	files := cobra.ShellCompDirectiveFilterFileExt
	if assemble.LooksLikePath(typed) || strings.HasPrefix(typed, ".") || strings.HasPrefix(typed, "~") {
		return []cobra.Completion{"jsonl"}, files
	}
	root, cwd, err := sys.Sessions(cmdutil.FlagString(c, "cwd"))
	if err != nil {
		return nil, cmdutil.NoFiles
	}
	cs := session.SessionCandidates(root, cwd, typed, invocation.ReadPaused)
	if len(cs) == 0 {
		return []cobra.Completion{"jsonl"}, files
	}
	return cmdutil.Offer(cs), cmdutil.NoFiles | cobra.ShellCompDirectiveKeepOrder
}

// completeLeaves offers the entry ids of the session --session names (or,
// with -c alone, the newest session of this folder), newest first, each
// with its role and first words.
func completeLeaves(sys *System, c *cobra.Command, typed string) []cobra.Completion {
	root, cwd, err := sys.Sessions(cmdutil.FlagString(c, "cwd"))
	if err != nil {
		return nil
	}
	cont, _ := c.Flags().GetBool("continue")
	return cmdutil.Offer(session.LeafCandidates(root, cwd, cmdutil.FlagString(c, "session"), cont, typed))
}
