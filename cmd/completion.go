package cmd

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/session"
	"gopi/pkg/settings"
	"gopi/pkg/tools"
)

// Shell completion of flag values (gopi completion bash|zsh|fish|powershell
// writes the script; the shell asks through cobra's hidden __complete).
// A completion reads what the command line already holds (--provider,
// --session, --cwd, --bare) and the settings, never writes anything, and
// offers nothing rather than fail.

// completeFunc is cobra's completion function of a flag.
type completeFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// noFiles is the directive of a closed list: no file names besides it.
const noFiles = cobra.ShellCompDirectiveNoFileComp

// registerAgentCompletions completes the values of the flags
// addAgentFlags adds, on c. Only a completion request registers them:
// cobra keeps them in a map of its own for the life of the process.
func registerAgentCompletions(c *cobra.Command, sys *System) {
	if len(sys.args) == 0 || (sys.args[0] != cobra.ShellCompRequestCmd && sys.args[0] != cobra.ShellCompNoDescRequestCmd) {
		return
	}
	funcs := map[string]completeFunc{
		"provider": func(c *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeProviders(sys, c), noFiles
		},
		"model": func(c *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeModels(sys, c)
		},
		"thinking": func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeThinking(), noFiles | cobra.ShellCompDirectiveKeepOrder
		},
		"tools": func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeToolList(typed, true), noFiles | cobra.ShellCompDirectiveNoSpace
		},
		"session": func(c *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeSessions(sys, c, typed)
		},
		"fork": func(c *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeSessions(sys, c, typed)
		},
		"leaf": func(c *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeLeaves(sys, c, typed), noFiles | cobra.ShellCompDirectiveKeepOrder
		},
		"fsync": cobra.FixedCompletions([]cobra.Completion{"always", "never"}, noFiles),
		"sandbox": cobra.FixedCompletions([]cobra.Completion{
			cobra.CompletionWithDesc("workspace-write", "write under the working folder and --add-dir (default)"),
			cobra.CompletionWithDesc("read-only", "write only the private temp folder"),
			cobra.CompletionWithDesc("off", "no sandbox"),
		}, noFiles|cobra.ShellCompDirectiveKeepOrder),
	}
	if c.Flags().Lookup("exclude-tools") != nil {
		funcs["exclude-tools"] = func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeToolList(typed, false), noFiles | cobra.ShellCompDirectiveNoSpace
		}
	}
	if c.Flags().Lookup("mode") != nil {
		funcs["mode"] = cobra.FixedCompletions([]cobra.Completion{
			cobra.CompletionWithDesc("print", "the answer"),
			cobra.CompletionWithDesc("json", "one result object"),
			cobra.CompletionWithDesc("events", "a JSON line per event"),
		}, noFiles)
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
	cwd, err := resolveCwd(sys, flagString(c, "cwd"))
	if err != nil {
		return nil
	}
	bare, _ := c.Flags().GetBool("bare")
	cfg, err := loadSettings(sys, c.Flags(), cwd, bare)
	if err != nil {
		return nil
	}
	return cfg
}

func flagString(c *cobra.Command, name string) string {
	if f := c.Flags().Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func completeProviders(sys *System, c *cobra.Command) []cobra.Completion {
	out := []cobra.Completion{
		cobra.CompletionWithDesc("anthropic", "Anthropic Messages API (ANTHROPIC_API_KEY)"),
		cobra.CompletionWithDesc("openai", "OpenAI Chat Completions API (OPENAI_API_KEY)"),
		cobra.CompletionWithDesc("faux", "the scripted offline model"),
	}
	customs := completionSettings(sys, c).DeclaredProviders()
	names := make([]string, 0, len(customs))
	for name := range customs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !slices.Contains([]string{"anthropic", "openai", "faux"}, name) {
			out = append(out, cobra.CompletionWithDesc(name, "declared in settings ("+customs[name].API+" API)"))
		}
	}
	return out
}

// completeModels offers the ids of --provider's models when it was given,
// else provider/id for every model of the catalog and of the providers
// settings declare. A faux model is a script file.
func completeModels(sys *System, c *cobra.Command) ([]cobra.Completion, cobra.ShellCompDirective) {
	prov := ""
	if c.Flags().Changed("provider") {
		prov = flagString(c, "provider")
	}
	if prov == "faux" {
		return nil, cobra.ShellCompDirectiveDefault
	}
	models := slices.Clone(catalog.All())
	for name, p := range completionSettings(sys, c).DeclaredProviders() {
		for _, m := range p.Models {
			m.Provider = name
			// one declared under a built-in provider's name takes the
			// catalog's place
			models = slices.DeleteFunc(models, func(o ai.Info) bool { return o.Provider == name && o.ID == m.ID })
			models = append(models, m)
		}
	}
	var out []cobra.Completion
	for _, m := range models {
		switch {
		case prov == "":
			out = append(out, cobra.CompletionWithDesc(m.Provider+"/"+m.ID, modelDesc(m)))
		case m.Provider == prov:
			out = append(out, cobra.CompletionWithDesc(m.ID, modelDesc(m)))
		}
	}
	return out, noFiles
}

func modelDesc(m ai.Info) string {
	d := m.Name
	if m.ContextWindow > 0 {
		if d != "" {
			d += " · "
		}
		if m.ContextWindow >= 1_000_000 {
			d += fmt.Sprintf("%gM context", float64(m.ContextWindow)/1e6)
		} else {
			d += fmt.Sprintf("%dk context", m.ContextWindow/1000)
		}
	}
	return d
}

func completeThinking() []cobra.Completion {
	out := make([]cobra.Completion, 0, len(ai.ThinkingLevels))
	for _, l := range ai.ThinkingLevels {
		out = append(out, string(l))
	}
	return out
}

// completeToolList completes the name after the last comma of a list,
// offering only tools the list does not hold yet.
func completeToolList(typed string, signs bool) []cobra.Completion {
	head, part := "", typed
	if i := strings.LastIndexByte(typed, ','); i >= 0 {
		head, part = typed[:i+1], typed[i+1:]
	}
	have := strings.Split(head, ",")
	sign := "" // a +name or -name entry completes its name
	if signs && (strings.HasPrefix(part, "+") || strings.HasPrefix(part, "-")) {
		sign, part = part[:1], part[1:]
	}
	var out []cobra.Completion
	for _, name := range append(slices.Clone(tools.AllNames), tools.TaskName) {
		if strings.HasPrefix(name, part) && !slices.Contains(have, sign+name) {
			out = append(out, head+sign+name)
		}
	}
	return out
}

// completeSessions offers the ids of this folder's sessions, newest
// first, with when they changed and how they began; something that looks
// like a path completes as a file name (.jsonl files and folders).
func completeSessions(sys *System, c *cobra.Command, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
	files := cobra.ShellCompDirectiveFilterFileExt
	if looksLikePath(typed) || strings.HasPrefix(typed, ".") || strings.HasPrefix(typed, "~") {
		return []cobra.Completion{"jsonl"}, files
	}
	root, cwd, err := sessionEnv(sys, flagString(c, "cwd"))
	if err != nil {
		return nil, noFiles
	}
	infos, _ := session.List(root, cwd)
	var out []cobra.Completion
	for _, info := range infos {
		if !strings.HasPrefix(info.Header.ID, typed) || len(out) == maxSessionCompletions {
			continue
		}
		desc := info.ModTime.Format("2006-01-02 15:04")
		if s, ok := summarize(info); ok && s.FirstPrompt != "" {
			desc += " · " + session.OneLine(s.FirstPrompt, 50)
		}
		out = append(out, cobra.CompletionWithDesc(info.Header.ID, desc))
	}
	if len(out) == 0 {
		return []cobra.Completion{"jsonl"}, files
	}
	return out, noFiles | cobra.ShellCompDirectiveKeepOrder
}

// maxSessionCompletions bounds the sessions offered for --session (each
// is read for its first prompt): the newest.
const maxSessionCompletions = 50

// maxLeafCompletions bounds the entries offered for --leaf: the newest.
const maxLeafCompletions = 200

// completeLeaves offers the entry ids of the session --session names (or,
// with -c alone, the newest session of this folder), newest first, each
// with its role and first words.
func completeLeaves(sys *System, c *cobra.Command, typed string) []cobra.Completion {
	root, cwd, err := sessionEnv(sys, flagString(c, "cwd"))
	if err != nil {
		return nil
	}
	var path string
	switch cont, _ := c.Flags().GetBool("continue"); {
	case flagString(c, "session") != "":
		path, err = session.Resolve(root, flagString(c, "session"))
	case cont:
		var info session.Info
		info, err = session.Latest(root, cwd)
		path = info.Path
	default:
		return nil // no session named: nothing to offer
	}
	if err != nil {
		return nil
	}
	f, err := session.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for i := len(f.Entries) - 1; i >= 0 && len(out) < maxLeafCompletions; i-- {
		e := f.Entries[i]
		if !strings.HasPrefix(e.ID, typed) {
			continue
		}
		kind, preview := session.Preview(e, 60)
		out = append(out, cobra.CompletionWithDesc(e.ID, session.OneLine(kind+": "+preview, 60)))
	}
	return out
}
