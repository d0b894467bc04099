package cmd

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/internal/interrupt"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
	"gopi/pkg/sandbox"
	"gopi/pkg/settings"
	"gopi/pkg/structured"
	"gopi/pkg/tools"
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

// runRun is gopi run: every failure is reported here, in the mode asked
// for, and returned as an exit code. Signals are trapped from here on:
// the first aborts the run, and so does stdout's reader going away; a
// second writes the forced exit's result object and exits at once.
// Every write to stdout goes through one mode.Output, which writes the
// one result line of json and events on every exit.
func runRun(ctx context.Context, sys *System, c *cobra.Command, o *runOptions) error {
	switch o.mode.v {
	case "rpc":
		return runRPC(ctx, sys, c, &rpcOptions{agentOptions: o.agentOptions, json: o.json})
	case "acp":
		return runACP(ctx, sys, c, &acpOptions{agentOptions: o.agentOptions, json: o.json})
	}
	start := sys.Now()
	m, err := cmdutil.PickMode(o.mode.v, o.mode.set, o.json)
	if err == nil {
		err = cmdutil.CheckConflicts(c.Flags())
	}
	inv := trapRun(ctx, sys, m, start)
	defer inv.trap.Stop()
	var p *prepared
	if err == nil {
		p, err = inv.prepare(c, o)
	}
	if p != nil {
		p.opened(inv.stdout)
		defer p.release()
	}
	if err != nil {
		return inv.fail(p, err)
	}
	if p.done {
		return nil
	}
	return inv.execute(p)
}

// invocation is one gopi run once its signals are trapped: a System of
// its own whose stderr waits until they are and is bounded with a stdout
// pipe it shares, its stdout as one mode.Output, its output mode and when
// it began.
type invocation struct {
	sys    *System
	trap   *interrupt.Run
	stdout *mode.Output
	out    mode.IO
	m      mode.Mode
	start  time.Time
}

// trapRun traps the run's signals; a second one ends stdout with the
// forced exit's result line.
func trapRun(ctx context.Context, sys *System, m mode.Mode, start time.Time) *invocation {
	rs := *sys
	trap := interrupt.TrapRun(ctx, rs.interrupts())
	rs.Stderr = trap.Stderr()
	stdout := mode.NewOutput(trap.Stdout(), m)
	trap.OnForce(func() { stdout.Abandon(rs.Now().Sub(start).Milliseconds()) })
	return &invocation{sys: &rs, trap: trap, stdout: stdout, out: mode.IO{Out: stdout, Err: rs.Stderr, ErrTerminal: rs.StderrTTY}, m: m, start: start}
}

// execute runs the prepared prompt and maps the outcome to the exit code;
// stdout tells whether its reader went away or stopped reading.
func (inv *invocation) execute(p *prepared) (rerr error) {
	sys, h, changes := inv.sys, p.h, p.h.a.Changes()
	rt := h.a.Runtime()
	warnRuntime(sys, rt)
	var o mode.Outcome
	defer traceRun(p, inv.start)(&o, &rerr) // telemetry.go: the run's spans, sent as it returns
	o, werr := mode.Run(p.ctx, rt, h.prompt, inv.out, mode.Options{Mode: inv.m, Session: mode.SessionOf(h.a), Header: mode.HeaderOf(h.a, h.set.Tools),
		Start: inv.start, Now: sys.Now, Then: h.then, Schema: p.schema, OutputRetries: p.outputRetries, Guard: h.a.Guard(),
		Files: func() ([]tools.FileChange, bool) { return changes.List(h.set.Cwd), changes.Inexact() }})
	if line := inv.trap.Stdout().Lost(o.Class != ai.ClassAborted); line != "" {
		fmt.Fprintln(sys.Stderr, line)
		return &reported{code: exitcode.Interrupted}
	}
	if werr != nil {
		// stdout failed (a full disk): say so on stderr; the session keeps the run.
		fmt.Fprintf(sys.Stderr, "gopi: writing the output failed: %v\n", werr)
		return &reported{code: exitcode.Internal}
	}
	if code := exitcode.Of(o.Class, o.Cause()); code != exitcode.OK {
		return &reported{code: code}
	}
	return nil
}

// fail writes a failure before the run and returns its exit code; a
// stdout whose reader is gone does not change the code. p (nil before
// the run was prepared) says which session was opened.
func (inv *invocation) fail(p *prepared, err error) error {
	var info *mode.SessionInfo
	var header *mode.Header
	if a := p.assembly(); mode.Opened(a) && fileExists(a.File()) {
		// A failure before the first entry (a required MCP server that
		// did not start) names no file it never wrote, like the failures
		// before the store was opened.
		info = mode.SessionOf(a)
		h := mode.HeaderOf(a, p.h.set.Tools)
		header = &h
	}
	class := cmdutil.ClassOf(err)
	werr := mode.WriteFailure(inv.out, inv.m, class, err, info, header, inv.sys.Now().Sub(inv.start).Milliseconds())
	if stdout := inv.trap.Stdout(); werr != nil && !stdout.Gone() && !stdout.Stuck() {
		return werr
	}
	return &reported{code: exitcode.Of(class, err)}
}

// fileExists says whether path names something on disk.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// prepared is everything a run needs, built before anything is sent.
type prepared struct {
	// h is the run's host, nil until its Assembly is built: its close
	// releases the session, the spill folder, bash's process groups, the
	// MCP servers and the sandbox.
	h *host
	// ctx carries the --timeout deadline, which covers reading stdin too.
	ctx    context.Context
	cancel context.CancelFunc
	done   bool // nothing to run (--print-system-prompt)
	// schema is --output-schema's, nil without it; outputRetries how
	// often an answer that does not satisfy it goes back to the model.
	schema        *structured.Schema
	outputRetries int
}

// assembly is the run's Assembly; nil before it was built.
func (p *prepared) assembly() *assemble.Assembly {
	if p == nil || p.h == nil {
		return nil
	}
	return p.h.a
}

// release ends the --timeout deadline and releases the run's Assembly.
func (p *prepared) release() {
	p.cancel()
	if p.h != nil {
		p.h.close()
	}
}

// opened tells the run's stdout the session (as far as it got) and the
// sandbox a forced exit's result line names.
func (p *prepared) opened(out *mode.Output) {
	a := p.assembly()
	var guard *sandbox.Guard
	if a != nil {
		guard = a.Guard()
	}
	out.Opened(func() *mode.SessionInfo { return mode.SessionOf(a) }, guard)
}

// resolveCwd returns the absolute working directory.
func resolveCwd(sys *System, flag string) (string, error) { return settings.Cwd(flag, sys.Getwd) }
