package invocation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"gopi/internal/interrupt"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
	"gopi/pkg/sandbox"
	"gopi/pkg/structured"
	"gopi/pkg/tools"
)

// RunOptions are one gopi run's: the agent flags and run's own.
type RunOptions struct {
	Agent Agent
	// Mode is the output mode the flags ask for; Refused, when not nil,
	// is what the flags' own checks refused (contradicting flags, --json
	// with another --mode), written in Mode as the run's failure.
	Mode    mode.Mode
	Refused error
	// NoStdin is --no-stdin, PrintSystemPrompt --print-system-prompt.
	NoStdin, PrintSystemPrompt bool
	// OutputSchema is --output-schema's file, OutputRetries
	// --output-retries.
	OutputSchema  string
	OutputRetries int
}

// Exit is an error whose output was already written: the caller only
// exits with Code.
type Exit struct{ Code int }

func (e *Exit) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Run is gopi run: every failure is reported here, in the mode asked
// for, and returned as an *Exit with its code. Signals are trapped from
// here on: the first aborts the run, and so does stdout's reader going
// away; a second writes the forced exit's result object and exits at
// once. Every write to stdout goes through one mode.Output, which writes
// the one result line of json and events on every exit. An error that
// is not an *Exit is left to the caller to say (stdout failed before the
// run).
func (p *Process) Run(ctx context.Context, o RunOptions) error {
	inv := p.trapRun(ctx, o.Mode, p.Now())
	defer inv.trap.Stop()
	err := o.Refused
	var pr *prepared
	if err == nil {
		pr, err = inv.prepare(o)
	}
	if pr != nil {
		pr.opened(inv.stdout)
		defer pr.release()
	}
	if err != nil {
		return inv.fail(pr, err)
	}
	if pr.done {
		return nil
	}
	return inv.execute(pr)
}

// invocation is one gopi run once its signals are trapped: a Process of
// its own whose stderr waits until they are and is bounded with a stdout
// pipe it shares, its stdout as one mode.Output, its output mode and when
// it began.
type invocation struct {
	p      *Process
	trap   *interrupt.Run
	stdout *mode.Output
	out    mode.IO
	m      mode.Mode
	start  time.Time
}

// trapRun traps the run's signals; a second one ends stdout with the
// forced exit's result line.
func (p *Process) trapRun(ctx context.Context, m mode.Mode, start time.Time) *invocation {
	rp := *p
	trap := interrupt.TrapRun(ctx, rp.Interrupts())
	rp.Stderr = trap.Stderr()
	stdout := mode.NewOutput(trap.Stdout(), m)
	trap.OnForce(func() { stdout.Abandon(rp.Now().Sub(start).Milliseconds()) })
	return &invocation{p: &rp, trap: trap, stdout: stdout, out: mode.IO{Out: stdout, Err: rp.Stderr, ErrTerminal: rp.StderrTTY}, m: m, start: start}
}

// execute runs the prepared prompt and maps the outcome to the exit code;
// stdout tells whether its reader went away or stopped reading.
func (inv *invocation) execute(pr *prepared) (rerr error) {
	p, h := inv.p, pr.h
	a, changes := h.Assembly, h.Assembly.Changes()
	rt := a.Runtime()
	Warn(p.Stderr, rt.Warnings())
	var o mode.Outcome
	defer traceRun(pr, inv.start)(&o, &rerr) // the run's spans, sent as it returns
	o, werr := mode.Run(pr.ctx, rt, h.prompt, inv.out, mode.Options{Mode: inv.m, Session: mode.SessionOf(a), Header: mode.HeaderOf(a, h.Settings.Tools),
		Start: inv.start, Now: p.Now, Then: h.then, Schema: pr.schema, OutputRetries: pr.outputRetries, Guard: a.Guard(),
		Files: func() ([]tools.FileChange, bool) { return changes.List(h.Settings.Cwd), changes.Inexact() }})
	if line := inv.trap.Stdout().Lost(o.Class != ai.ClassAborted); line != "" {
		fmt.Fprintln(p.Stderr, line)
		return &Exit{Code: exitcode.Interrupted}
	}
	if werr != nil {
		// stdout failed (a full disk): say so on stderr; the session keeps the run.
		fmt.Fprintf(p.Stderr, "gopi: writing the output failed: %v\n", werr)
		return &Exit{Code: exitcode.Internal}
	}
	if code := exitcode.Of(o.Class, o.Cause()); code != exitcode.OK {
		return &Exit{Code: code}
	}
	return nil
}

// fail writes a failure before the run and returns its exit code; a
// stdout whose reader is gone does not change the code. pr (nil before
// the run was prepared) says which session was opened.
func (inv *invocation) fail(pr *prepared, err error) error {
	var info *mode.SessionInfo
	var header *mode.Header
	if a := pr.assembly(); mode.Opened(a) && fileExists(a.File()) {
		// A failure before the first entry (a required MCP server that
		// did not start) names no file it never wrote, like the failures
		// before the store was opened.
		info = mode.SessionOf(a)
		h := mode.HeaderOf(a, pr.h.Settings.Tools)
		header = &h
	}
	class := ClassOf(err)
	werr := mode.WriteFailure(inv.out, inv.m, class, err, info, header, inv.p.Now().Sub(inv.start).Milliseconds())
	if stdout := inv.trap.Stdout(); werr != nil && !stdout.Gone() && !stdout.Stuck() {
		return werr
	}
	return &Exit{Code: exitcode.Of(class, err)}
}

// ClassOf is the class of a failure before a run: an *assemble.Error's
// own, a cancel's aborted, or what ai.ClassOf says.
func ClassOf(err error) ai.Class {
	var ce *assemble.Error
	if errors.As(err, &ce) {
		return ce.Class
	}
	if errors.Is(err, context.Canceled) {
		return ai.ClassAborted
	}
	return ai.ClassOf(err)
}

// fileExists says whether path names something on disk.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// prepared is everything a run needs, built before anything is sent.
type prepared struct {
	// h is the run's host, nil until its Assembly is built: its Close
	// releases the session, the spill folder, bash's process groups, the
	// MCP servers and the sandbox.
	h *Host
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
func (pr *prepared) assembly() *assemble.Assembly {
	if pr == nil || pr.h == nil {
		return nil
	}
	return pr.h.Assembly
}

// release ends the --timeout deadline and releases the run's Assembly.
func (pr *prepared) release() {
	pr.cancel()
	if pr.h != nil {
		pr.h.Close()
	}
}

// opened tells the run's stdout the session (as far as it got) and the
// sandbox a forced exit's result line names.
func (pr *prepared) opened(out *mode.Output) {
	a := pr.assembly()
	var guard *sandbox.Guard
	if a != nil {
		guard = a.Guard()
	}
	out.Opened(func() *mode.SessionInfo { return mode.SessionOf(a) }, guard)
}
