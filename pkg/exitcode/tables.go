package exitcode

// Commands names every command that has a table of its own, by its path
// below gopi ("" is bare gopi).
func Commands() []string {
	names := make([]string, 0, len(tables))
	for path := range tables {
		names = append(names, path)
	}
	return names
}

// Table is the exit codes the command at path (below gopi: "" is bare
// gopi, "session list") can exit with, as its help ends; own says it has
// a table of its own: one without (completion, help) gets the few codes
// any command has.
func Table(path string) (table string, own bool) {
	if t, ok := tables[path]; ok {
		return t, true
	}
	return otherTable, false
}

// runTable is the table of a model run: gopi run, and bare gopi.
const runTable = `Exit codes:
  0    the model stopped with an answer
  1    internal error
  2    usage or input error (nothing was sent to a model, no file was changed)
  3    the model or provider failed (after retries)
  4    authentication or quota refused
  5    the session could not be read or written (locked, changed by another program, disk full)
  6    max steps reached
  7    --timeout expired
  8    a budget was spent (--max-budget-tokens, --max-budget-usd)
  9    the answer did not satisfy --output-schema after its retries
  10   something the run requires could not start (a sandbox asked for, a required MCP server), before any request
  130  interrupted (SIGINT/SIGTERM/SIGHUP, or stdout's reader went away)`

// tables are the exit codes each command can produce, by its path below
// gopi, shown at the end of its help.
var tables = map[string]string{
	"":    runTable, // bare gopi runs or chats
	"run": runTable,
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

// otherTable is the table of a command tables does not list.
const otherTable = `Exit codes:
  0    done
  1    internal error
  2    usage error (an unknown argument or flag)`
