package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gopi/internal/interrupt"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/sandbox"
	"gopi/pkg/tools"
)

// runOptions are gopi run's flags.
type runOptions struct {
	session   string
	leaf      string
	cont      bool
	noSession bool
	fork      string    // --fork: the session to copy into a new one
	sessionID string    // --session-id
	name      setString // -n/--name (an empty one given is refused)
	apiKey    string
	keyFile   string // --api-key-file
	noTools   bool
	// excludeTools are --exclude-tools' names and patterns.
	excludeTools []string
	cwd          string
	bare         bool
	noStdin      bool
	noSkills     bool
	noTempl      bool
	noContext    bool
	printSP      bool
	args         []string
	// outputSchema is --output-schema's file, outputRetries how often an
	// answer that does not satisfy it goes back to the model.
	outputSchema  string
	outputRetries int
	// mode is --mode (given or not), json --json: outputMode joins them.
	mode setString
	json bool
	// mcpConfig are --mcp-config's files; noMCP is --no-mcp (mcp.go).
	mcpConfig []string
	noMCP     bool
}

func newRunCmd(sys *System) *cobra.Command {
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
			return runRun(c.Context(), sys, c, o)
		},
	}
	c.SetFlagErrorFunc(runFlagError(sys))
	addAgentFlags(c.Flags(), o)
	addRunFlags(c.Flags(), o)
	registerAgentCompletions(c, sys)
	return c
}

// setString is a string flag that knows whether it was given.
type setString struct {
	v   string
	set bool
}

func (s *setString) String() string     { return s.v }
func (s *setString) Set(v string) error { s.v, s.set = v, true; return nil }
func (s *setString) Type() string       { return "string" }

// runOnlyFlags are the flags of gopi run that gopi chat has not: given
// to bare gopi, they ask for a run (rootcmd.go).
var runOnlyFlags = []string{"mode", "json", "print", "timeout", "no-stdin", "print-system-prompt", "max-prompt-bytes"}

// addRunFlags adds runOnlyFlags.
func addRunFlags(f *pflag.FlagSet, o *runOptions) {
	o.mode.v = string(mode.Print)
	f.Var(&o.mode, "mode", "output: print (the answer; pi's text), json (one result object), events (a JSON line per event, pi's --mode json) rpc (pi's RPC protocol on stdin and stdout, as gopi rpc) or acp (the Agent Client Protocol, as gopi acp)")
	f.BoolVar(&o.json, "json", false, "same as --mode json")
	f.BoolP("print", "p", false, "run the prompt and exit, also on a terminal (pi's -p; what gopi run always does)")
	f.Duration("timeout", 0, "deadline for the whole run, e.g. 10m (exit 7 when it expires)")
	f.BoolVar(&o.noStdin, "no-stdin", false, "do not read stdin")
	f.BoolVar(&o.printSP, "print-system-prompt", false, "print the assembled system prompt and exit")
	f.Int("max-prompt-bytes", defaultMaxPromptBytes, "refuse a prompt (arguments and stdin together) larger than this (exit 2)")
}

// addAgentFlags adds the flags gopi run and gopi chat share: session,
// model, tools, limits and resource discovery.
func addAgentFlags(f *pflag.FlagSet, o *runOptions) {
	f.StringVar(&o.session, "session", "", "session file, or the prefix of a session id, to resume or create")
	f.StringVar(&o.leaf, "leaf", "", "continue from this entry id (or a unique prefix); a new branch when it is not the newest")
	f.BoolVarP(&o.cont, "continue", "c", false, "continue from the newest entry (without --session: the newest session of this folder)")
	f.BoolVar(&o.noSession, "no-session", false, "keep nothing on disk")
	f.StringVar(&o.fork, "fork", "", "start a new session holding a copy of this session (file or id prefix) and continue from its newest entry")
	f.StringVar(&o.sessionID, "session-id", "", "the session with this id: continued from its newest entry when it exists, started with this id otherwise")
	f.String("session-dir", "", "keep and look up sessions directly in this folder (default: $GOPI_HOME/sessions/<folder of the working directory>)")
	f.VarP(&o.name, "name", "n", "name the session (a session_info entry, as pi's --name)")
	f.String("provider", "", "model provider: anthropic, openai, faux, or one declared in settings")
	f.String("model", "", "model id, or provider/id")
	f.String("base-url", "", "the provider's API address (local and compatible servers)")
	f.StringVar(&o.apiKey, "api-key", "", apiKeyHelp)
	f.StringVar(&o.keyFile, "api-key-file", "", apiKeyFileHelp)
	f.String("system-prompt", "", "system prompt text, or a file holding it")
	f.String("append-system-prompt", "", "text (or a file) appended to the system prompt")
	f.StringSlice("tools", tools.DefaultNames, "tools to offer: read,write,edit,bash,grep,find,ls (* matches any characters), or +name,-name to change the default ones")
	f.StringSliceVar(&o.excludeTools, "exclude-tools", nil, "tools not to offer, after every other choice: names or patterns (*)")
	f.BoolVar(&o.noTools, "no-tools", false, "offer no tools")
	f.StringArrayVar(&o.mcpConfig, "mcp-config", nil, "also start the MCP servers of this file ({\"mcpServers\": {...}}, as Claude Code's .mcp.json); may be repeated")
	f.BoolVar(&o.noMCP, "no-mcp", false, "start no MCP server")
	f.Int("max-steps", loop.DefaultMaxSteps, "most model requests in one run")
	f.Int("max-tokens", 0, "most output tokens per answer (default: the model's)")
	f.StringVar(&o.outputSchema, "output-schema", "", "a JSON Schema file the final answer must satisfy (exit 9 when it never does)")
	f.IntVar(&o.outputRetries, "output-retries", mode.DefaultOutputRetries, "how often an answer that does not satisfy --output-schema is sent back")
	f.String("max-budget-tokens", "", "most input and output tokens the whole run may spend (exit 8 when spent)")
	f.String("max-budget-usd", "", "most US dollars the whole run may spend, from the model's prices (exit 8 when spent)")
	f.String("thinking", "", "thinking level: off, minimal, low, medium, high, xhigh")
	f.String("fsync", "always", "sync the session file after each entry: always or never")
	f.StringVar(&o.cwd, "cwd", "", "working directory for tools and sessions (default: the current one)")
	f.BoolVar(&o.bare, "bare", false, "discover nothing: no settings files, context files, skills, templates or hooks")
	f.BoolVar(&o.noSkills, "no-skills", false, "do not load skills")
	f.BoolVar(&o.noTempl, "no-prompt-templates", false, "do not expand prompt templates")
	f.BoolVar(&o.noContext, "no-context-files", false, "do not load AGENTS.md or CLAUDE.md files")
	addSandboxFlags(f)
	f.Bool("no-themes", false, "accepted for pi's command lines: gopi has no themes")
}

// runRun is gopi run: every failure is reported here, in the mode asked
// for, and returned as an exit code. Signals are trapped from here on:
// the first aborts the run, and so does stdout's reader going away; a
// second writes the forced exit's result object and exits at once.
// Every write to stdout goes through one mode.Output, which writes the
// one result line of json and events on every exit.
func runRun(ctx context.Context, sys *System, c *cobra.Command, o *runOptions) error {
	switch o.mode.v {
	case "rpc":
		return runRPC(ctx, sys, c, o)
	case "acp":
		return runACP(ctx, sys, c, o)
	}
	start := sys.Now()
	m, err := pickMode(o.mode.v, o.mode.set, o.json)
	if err == nil {
		err = checkConflicts(c.Flags())
	}
	// The run works with a System of its own whose stderr waits until the
	// signals are trapped and is bounded with a stdout pipe it shares.
	rs := *sys
	trap := interrupt.TrapRun(ctx, rs.interrupts())
	defer trap.Stop()
	rs.Stderr = trap.Stderr()
	sys = &rs
	stdout := mode.NewOutput(trap.Stdout(), m)
	trap.OnForce(func() { stdout.Abandon(sys.Now().Sub(start).Milliseconds()) })
	out := mode.IO{Out: stdout, Err: sys.Stderr, ErrTerminal: sys.StderrTTY}
	var p *prepared
	if err == nil {
		p, err = prepareRun(trap.Context(), sys, c, o, m, runStreams{stdout: stdout, trapped: trap.Ready})
	}
	if p != nil {
		stdout.Opened(p.sessionInfo, p.guard())
	}
	if p != nil && p.a != nil {
		defer p.close(sys)
	}
	if p != nil && p.cancel != nil {
		defer p.cancel()
	}
	if err != nil {
		return reportFailure(sys, out, trap.Stdout(), m, p, err, start)
	}
	if p.done {
		return nil
	}
	return p.execute(p.ctx, sys, out, trap.Stdout(), m, start)
}

// runStreams are what gopi run hands prepareRun: its stdout, and the wait
// until its signals are trapped (before stdin is read or anything is
// started).
type runStreams struct {
	stdout  io.Writer
	trapped func()
}

// execute runs the prepared prompt and maps the outcome to the exit code;
// stdout tells whether its reader went away or stopped reading.
func (p *prepared) execute(ctx context.Context, sys *System, out mode.IO, stdout *interrupt.Stdout, m mode.Mode, start time.Time) (rerr error) {
	rt, changes := p.a.Runtime(), p.a.Changes()
	for _, w := range rt.Warnings() {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
	}
	info := p.sessionInfo()
	var o mode.Outcome
	defer traceRun(p, start)(&o, &rerr) // telemetry.go: the run's spans, sent as it returns
	o, werr := mode.Run(ctx, rt, p.prompt, out, mode.Options{Mode: m, Session: info, Header: p.header(), Start: start, Now: sys.Now, Then: p.then,
		Schema: p.schema, OutputRetries: p.outputRetries, Guard: p.a.Guard(),
		Files: func() ([]tools.FileChange, bool) { return changes.List(p.cwd), changes.Inexact() }})
	if err := stdoutLost(sys, stdout, o.Class != ai.ClassAborted); err != nil {
		return err
	}
	if werr != nil {
		// stdout failed (a full disk): say so on stderr; the session keeps the run.
		fmt.Fprintf(sys.Stderr, "gopi: writing the output failed: %v\n", werr)
		return &reported{code: ExitInternal}
	}
	err := o.Err
	if err == nil {
		err = o.Result.Err
	}
	if code := exitCode(o.Class, err); code != ExitOK {
		return &reported{code: code}
	}
	return nil
}

// stdoutLost says on stderr that nobody reads the run's output any more,
// and returns the exit of an interrupt; nil while stdout is read. ended
// says the run had ended on its own (it was not aborted).
func stdoutLost(sys *System, stdout *interrupt.Stdout, ended bool) error {
	switch {
	case stdout.Gone():
		// Like an interrupt, whether the run was still going (it was
		// aborted) or had just ended.
		what := "the run was aborted"
		if ended {
			what = "its end was not written"
		}
		fmt.Fprintf(sys.Stderr, "gopi: stdout was closed by its reader: %s; the session keeps what was done\n", what)
	case stdout.Stuck():
		// Only a cancelled run bounds its writes: it ends as interrupted.
		fmt.Fprintln(sys.Stderr, interrupt.StuckLine)
	default:
		return nil
	}
	return &reported{code: ExitInterrupted}
}

// reportFailure writes a failure before the run in mode m and returns its
// exit code; a stdout whose reader is gone does not change the code.
func reportFailure(sys *System, out mode.IO, stdout *interrupt.Stdout, m mode.Mode, p *prepared, err error, start time.Time) error {
	var info *mode.SessionInfo
	var header *mode.Header
	if p != nil && p.opened() && fileExists(p.a.File()) {
		// A failure before the first entry (a required MCP server that
		// did not start) names no file it never wrote, like the failures
		// before the store was opened.
		info = p.sessionInfo()
		h := p.header()
		header = &h
	}
	class := classOf(err)
	werr := mode.WriteFailure(out, m, class, err, info, header, sys.Now().Sub(start).Milliseconds())
	if werr != nil && !stdout.Gone() && !stdout.Stuck() {
		return werr
	}
	return &reported{code: exitCode(class, err)}
}

// fileExists says whether path names something on disk.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// prepared is everything a run needs, built before anything is sent.
type prepared struct {
	// a is the run's Assembly: its Close releases the session, the spill
	// folder, bash's process groups, the MCP servers and the sandbox.
	a      *assemble.Assembly
	tools  []string
	prompt []ai.Message
	// then are the further message arguments, each a prompt of its own.
	then []ai.Message
	// ctx carries the --timeout deadline, which covers reading stdin too.
	ctx    context.Context
	cancel context.CancelFunc
	done   bool // nothing to run (--print-system-prompt)
	// schema is --output-schema's, nil without it; outputRetries how
	// often an answer that does not satisfy it goes back to the model.
	schema        *mode.OutputSchema
	outputRetries int
	cwd           string
	// secrets are scrubbed from the @file arguments' text.
	secrets *tools.Secrets
}

// close releases the run's Assembly.
func (p *prepared) close(sys *System) {
	sys.hosts.remove(p.a)
	p.a.Close()
}

// sessionInfo names the session file for the result object; nil when no
// file was opened (--no-session keeps nothing a later run could resume).
func (p *prepared) sessionInfo() *mode.SessionInfo {
	if !p.opened() {
		return nil
	}
	a := p.a
	leaf := a.Leaf()
	if rt := a.Runtime(); rt != nil {
		leaf = rt.Leaf()
	}
	return &mode.SessionInfo{ID: a.Store().Header().ID, File: a.File(), LeafID: leaf}
}

// opened says whether the run's Assembly opened a session file.
func (p *prepared) opened() bool {
	return p.a != nil && p.a.Store() != nil && p.a.File() != ""
}

func (p *prepared) header() mode.Header {
	a := p.a
	return mode.Header{Header: a.Store().Header(), File: a.File(), LeafID: a.Leaf(), Model: a.Model().Info, Tools: p.tools}
}

// guard is the run's sandbox and permission rules (the result's sandbox
// and denials); nil before its Assembly was built.
func (p *prepared) guard() *sandbox.Guard {
	if p.a == nil {
		return nil
	}
	return p.a.Guard()
}

// resolveCwd returns the absolute working directory.
func resolveCwd(sys *System, flag string) (string, error) {
	cwd := flag
	if cwd == "" {
		wd, err := sys.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", usageErr("--cwd %s: %v", flag, err)
	}
	if err := isDir(abs); err != nil {
		return "", usageErr("--cwd %s: %v: give an existing folder", flag, err)
	}
	return abs, nil
}
