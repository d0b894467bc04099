package cmd

import (
	"strings"

	"github.com/spf13/cobra"
)

// exitTables are the exit codes each command can produce, by its path
// below gopi ("" is bare gopi), shown at the end of its help. A command
// not listed (completion, help) shows otherCodes.
var exitTables = map[string]string{
	"":    exitCodesHelp, // bare gopi runs or chats
	"run": exitCodesHelp,
	"chat": `Exit codes:
  0    the chat ended (/quit, Ctrl-D on an empty line, Ctrl-C twice)
  1    internal error
  2    usage or input error: no terminal, a bad flag, setting or @FILE (nothing was sent)
  5    the session could not be read or written (locked, changed by another program, disk full)
  10   something the chat requires could not start (a sandbox asked for, a required MCP server), before any request
  130  interrupted by a signal (SIGINT/SIGTERM/SIGHUP; Ctrl-Break on Windows)`,
	"rpc": `Exit codes:
  0    stdin closed (a running run is aborted and what it reached kept)
  1    internal error
  2    usage or input error before serving: a bad flag or setting (nothing was sent)
  5    the session could not be read or written (locked, changed by another program, disk full)
  10   something the agent requires could not start (a sandbox asked for, a required MCP server), before any request
  130  interrupted (SIGINT/SIGTERM/SIGHUP)`,
	"acp": `Exit codes:
  0    stdin closed (running prompts are cancelled and what they reached kept)
  1    internal error
  2    usage error before serving: a bad flag or setting
  130  interrupted (SIGINT/SIGTERM/SIGHUP)`,
	"version": `Exit codes:
  0    printed
  1    internal error
  2    usage error (an argument or unknown flag)`,
	"models": `Exit codes:
  0    listed
  1    internal error
  2    usage or input error: a bad flag, settings file or --provider`,
	"context": `Exit codes:
  0    printed
  1    internal error
  2    usage or input error: a bad flag or settings file`,
	"session": `Exit codes:
  0    help printed
  2    an unknown subcommand`,
	"session list": `Exit codes:
  0    listed
  1    internal error
  2    usage or input error: a bad flag or settings file
  5    the sessions folder could not be read`,
	"session tree": `Exit codes:
  0    printed
  1    internal error
  2    the session is wrong: no such file or id, or not a session file`,
	"session show": `Exit codes:
  0    printed
  1    internal error
  2    the session or --leaf is wrong: no such file, id or entry, or not a session file`,
	"session export": `Exit codes:
  0    written
  1    internal error
  2    the session, --leaf or -o is wrong (-o naming a session file among
       them); nothing was written`,
	"mcp": `Exit codes:
  0    help printed
  2    an unknown subcommand`,
	"mcp list": `Exit codes:
  0    every server started
  1    internal error
  2    usage or input error: a bad flag, settings file or server declaration
  10   a server did not start`,
}

// otherCodes is the help's table of a command exitTables does not list.
const otherCodes = `Exit codes:
  0    done
  1    internal error
  2    usage error (an unknown argument or flag)`

// exitCodesOf is the exit code table of c's help.
func exitCodesOf(c *cobra.Command) string {
	path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), c.Root().Name()), " ")
	if t, ok := exitTables[path]; ok {
		return t
	}
	return otherCodes
}

// setExitHelp ends the usage (and so the help) of root and every command
// below it with that command's own exit codes.
func setExitHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("exitCodes", exitCodesOf)
	root.SetUsageTemplate(root.UsageTemplate() + "\n{{exitCodes .}}\n")
}
