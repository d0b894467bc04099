package cmd

import (
	"time"

	"github.com/spf13/pflag"

	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/settings"
	"gopi/pkg/structured"
	"gopi/pkg/tools"
)

// The flag groups of the commands that run the agent. Each group binds
// every flag it adds into its fields; a command's options struct embeds
// the groups it takes (agentOptions: run, chat, rpc and acp; outputFlags:
// run and bare gopi only), so a flag a command does not take is unknown to
// it, as pflag says of any unknown flag. The settings read the flags that
// feed them (provider, model, tools, max-steps, ...) through the FlagSet,
// under these names.

// sessionFlags choose the session a run continues, and where it is kept.
type sessionFlags struct {
	session    string
	leaf       string
	cont       bool
	noSession  bool
	fork       string // --fork: the session to copy into a new one
	sessionID  string // --session-id
	sessionDir string
	name       setString // -n/--name (an empty one given is refused)
}

// AddFlags adds the session flags to f.
func (s *sessionFlags) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&s.session, "session", "", "session file, or the prefix of a session id, to resume or create")
	f.StringVar(&s.leaf, "leaf", "", "continue from this entry id (or a unique prefix); a new branch when it is not the newest")
	f.BoolVarP(&s.cont, "continue", "c", false, "continue from the newest entry (without --session: the newest session of this folder)")
	f.BoolVar(&s.noSession, "no-session", false, "keep nothing on disk")
	f.StringVar(&s.fork, "fork", "", "start a new session holding a copy of this session (file or id prefix) and continue from its newest entry")
	f.StringVar(&s.sessionID, "session-id", "", "the session with this id: continued from its newest entry when it exists, started with this id otherwise")
	f.StringVar(&s.sessionDir, "session-dir", "", "keep and look up sessions directly in this folder (default: $GOPI_HOME/sessions/<folder of the working directory>)")
	f.VarP(&s.name, "name", "n", "name the session (a session_info entry, as pi's --name)")
}

// modelFlags choose the model, its provider and key, and its thinking.
type modelFlags struct {
	provider string
	model    string
	baseURL  string
	apiKey   string
	keyFile  string // --api-key-file
	thinking string
}

// AddFlags adds the model flags to f.
func (m *modelFlags) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&m.provider, "provider", "", "model provider: anthropic, openai, faux, or one declared in settings")
	f.StringVar(&m.model, "model", "", "model id, or provider/id")
	f.StringVar(&m.baseURL, "base-url", "", "the provider's API address (local and compatible servers)")
	f.StringVar(&m.apiKey, "api-key", "", apiKeyHelp)
	f.StringVar(&m.keyFile, "api-key-file", "", apiKeyFileHelp)
	f.StringVar(&m.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh")
}

// toolFlags choose the tools offered, MCP servers' among them.
type toolFlags struct {
	tools []string
	// excludeTools are --exclude-tools' names and patterns.
	excludeTools []string
	noTools      bool
	// mcpConfig are --mcp-config's files; noMCP is --no-mcp (mcp.go).
	mcpConfig []string
	noMCP     bool
}

// AddFlags adds the tool flags to f.
func (t *toolFlags) AddFlags(f *pflag.FlagSet) {
	f.StringSliceVar(&t.tools, "tools", tools.DefaultNames, "tools to offer: read,write,edit,bash,grep,find,ls (* matches any characters), or +name,-name to change the default ones")
	f.StringSliceVar(&t.excludeTools, "exclude-tools", nil, "tools not to offer, after every other choice: names or patterns (*)")
	f.BoolVar(&t.noTools, "no-tools", false, "offer no tools")
	f.StringArrayVar(&t.mcpConfig, "mcp-config", nil, "also start the MCP servers of this file ({\"mcpServers\": {...}}, as Claude Code's .mcp.json); may be repeated")
	f.BoolVar(&t.noMCP, "no-mcp", false, "start no MCP server")
}

// limitFlags bound a run: requests, answers' tokens, the budget.
type limitFlags struct {
	maxSteps        int
	maxTokens       int
	maxBudgetTokens string
	maxBudgetUSD    string
}

// AddFlags adds the limit flags to f.
func (l *limitFlags) AddFlags(f *pflag.FlagSet) {
	f.IntVar(&l.maxSteps, "max-steps", loop.DefaultMaxSteps, "most model requests in one run")
	f.IntVar(&l.maxTokens, "max-tokens", 0, "most output tokens per answer (default: the model's)")
	f.StringVar(&l.maxBudgetTokens, "max-budget-tokens", "", "most input and output tokens the whole run may spend (exit 8 when spent)")
	f.StringVar(&l.maxBudgetUSD, "max-budget-usd", "", "most US dollars the whole run may spend, from the model's prices (exit 8 when spent)")
}

// resourceFlags choose the working folder and what is discovered in it:
// the system prompt, context files, skills, templates, the settings.
type resourceFlags struct {
	systemPrompt       string
	appendSystemPrompt string
	fsync              string
	cwd                string
	bare               bool
	noSkills           bool
	noTempl            bool
	noContext          bool
	noThemes           bool // accepted for pi's command lines
}

// AddFlags adds the resource flags to f.
func (r *resourceFlags) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&r.systemPrompt, "system-prompt", "", "system prompt text, or a file holding it")
	f.StringVar(&r.appendSystemPrompt, "append-system-prompt", "", "text (or a file) appended to the system prompt")
	f.StringVar(&r.fsync, "fsync", "always", "sync the session file after each entry: always or never")
	f.StringVar(&r.cwd, "cwd", "", "working directory for tools and sessions (default: the current one)")
	f.BoolVar(&r.bare, "bare", false, "discover nothing: no settings files, context files, skills, templates or hooks")
	f.BoolVar(&r.noSkills, "no-skills", false, "do not load skills")
	f.BoolVar(&r.noTempl, "no-prompt-templates", false, "do not expand prompt templates")
	f.BoolVar(&r.noContext, "no-context-files", false, "do not load AGENTS.md or CLAUDE.md files")
	f.BoolVar(&r.noThemes, "no-themes", false, "accepted for pi's command lines: gopi has no themes")
}

// sandboxFlags are the sandbox and permission flags (sandbox.go reads
// them into the run's policy).
type sandboxFlags struct {
	added        bool // AddFlags ran: the command takes a sandbox
	sandbox      setString
	allowNetwork bool
	addDirs      []string
	allowTools   []string
	denyTools    []string
}

// AddFlags adds the sandbox and permission flags to f.
func (s *sandboxFlags) AddFlags(f *pflag.FlagSet) {
	s.added = true
	f.Var(&s.sandbox, "sandbox", "what tools and commands may write: read-only, workspace-write (the default where the kernel supports it) or off")
	f.BoolVar(&s.allowNetwork, "allow-network", false, "let commands connect and bind TCP sockets (the sandbox blocks them by default)")
	f.StringArrayVar(&s.addDirs, "add-dir", nil, "a further folder commands and tools may write in (workspace-write; repeatable)")
	f.StringArrayVar(&s.allowTools, "allow-tools", nil, "permission patterns such as Bash(git *) or Edit(src/**): a tool named here may only be called as one says (repeatable, or comma-separated)")
	f.StringArrayVar(&s.denyTools, "deny-tools", nil, "permission patterns such as Bash(rm *) or Read(/etc/**): matching calls are refused (repeatable, or comma-separated; deny wins)")
}

// agentOptions are the flags every command that runs the agent takes
// (run, chat, rpc, acp), and the command's arguments.
type agentOptions struct {
	sessionFlags
	modelFlags
	toolFlags
	limitFlags
	resourceFlags
	sandboxFlags
	args []string
}

// AddFlags adds every group of agentOptions to f.
func (o *agentOptions) AddFlags(f *pflag.FlagSet) {
	o.sessionFlags.AddFlags(f)
	o.modelFlags.AddFlags(f)
	o.toolFlags.AddFlags(f)
	o.limitFlags.AddFlags(f)
	o.resourceFlags.AddFlags(f)
	o.sandboxFlags.AddFlags(f)
}

// outputFlags are the flags only gopi run (and bare gopi) takes: its
// output, its deadline, its prompt's input and --output-schema.
type outputFlags struct {
	// mode is --mode (given or not), json --json: outputMode joins them.
	mode     setString
	json     bool
	print    bool
	timeout  time.Duration
	noStdin  bool
	printSP  bool
	maxBytes int // --max-prompt-bytes
	// outputSchema is --output-schema's file, outputRetries how often an
	// answer that does not satisfy it goes back to the model.
	outputSchema  string
	outputRetries int
}

// runOnlyFlags are the flags of outputFlags: given to bare gopi, they ask
// for a run (rootcmd.go).
var runOnlyFlags = []string{"mode", "json", "print", "timeout", "no-stdin", "print-system-prompt", "max-prompt-bytes", "output-schema", "output-retries"}

// AddFlags adds run's own flags, runOnlyFlags, to f.
func (o *outputFlags) AddFlags(f *pflag.FlagSet) {
	o.mode.v = string(mode.Print)
	f.Var(&o.mode, "mode", "output: print (the answer; pi's text), json (one result object), events (a JSON line per event, pi's --mode json) rpc (pi's RPC protocol on stdin and stdout, as gopi rpc) or acp (the Agent Client Protocol, as gopi acp)")
	f.BoolVar(&o.json, "json", false, "same as --mode json")
	f.BoolVarP(&o.print, "print", "p", false, "run the prompt and exit, also on a terminal (pi's -p; what gopi run always does)")
	f.DurationVar(&o.timeout, "timeout", 0, "deadline for the whole run, e.g. 10m (exit 7 when it expires)")
	f.BoolVar(&o.noStdin, "no-stdin", false, "do not read stdin")
	f.BoolVar(&o.printSP, "print-system-prompt", false, "print the assembled system prompt and exit")
	f.IntVar(&o.maxBytes, "max-prompt-bytes", settings.DefaultMaxPromptBytes, "refuse a prompt (arguments and stdin together) larger than this (exit 2)")
	f.StringVar(&o.outputSchema, "output-schema", "", "a JSON Schema file the final answer must satisfy (exit 9 when it never does)")
	f.IntVar(&o.outputRetries, "output-retries", structured.DefaultRetries, "how often an answer that does not satisfy --output-schema is sent back")
}

// setString is a string flag that knows whether it was given.
type setString struct {
	v   string
	set bool
}

func (s *setString) String() string     { return s.v }
func (s *setString) Set(v string) error { s.v, s.set = v, true; return nil }
func (s *setString) Type() string       { return "string" }
