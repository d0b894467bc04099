package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/oneline"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// ErrInterrupt is what a LineReader returns when the user pressed Ctrl-C.
var ErrInterrupt = errors.New("interrupt")

// Line is one line the user entered.
type Line struct {
	Text string
	// FollowUp: entered with Alt-Enter, queued for when the run would stop.
	FollowUp bool
}

// LineReader reads the user's lines with editing and history. ReadLine
// returns ErrInterrupt on Ctrl-C and io.EOF on Ctrl-D on an empty line;
// SetPrompt may be called while ReadLine waits. Interrupt, called from
// another goroutine when the chat must end at once, makes the waiting
// ReadLine and every later one return an error; it may be called twice.
type LineReader interface {
	ReadLine() (Line, error)
	SetPrompt(prompt string)
	Interrupt()
}

// Want is the Runtime the chat asks for when it switches leaf, model,
// thinking level or session.
type Want struct {
	Leaf       string // the entry to continue from; "" for an empty session
	Model      string // "provider/id" to switch to; "" keeps the current one
	Thinking   ai.ThinkingLevel
	NewSession bool // start a new session (the current one is released)
}

// Opened is a Runtime the host built for the chat.
type Opened struct {
	Runtime *runtime.Runtime
	Model   ai.Info
	File    string // "" without a session file
	// Thinking is the Runtime's thinking level when the host chose
	// it (a switched session's own); "" keeps the one asked for.
	Thinking ai.ThinkingLevel
}

// Deps are what the chat needs from its host, which owns settings,
// models and session files.
type Deps struct {
	// Open builds a Runtime on the open session (or a new one). On error
	// the current Runtime stays in use.
	Open func(Want) (Opened, error)
	// Expand expands prompt templates and /skill:name.
	Expand func(text string) (string, error)
	// Tree draws the session's entries with their ids.
	Tree func(w io.Writer, store session.Store) error
}

// Options tune the chat's display.
type Options struct {
	Color    bool
	Width    func() int // the terminal's width; nil: 80
	Thinking ai.ThinkingLevel
	Now      func() time.Time
	// First is a prompt to send at once, as if typed (gopi chat PROMPT).
	First string
	// FirstFiles is the text of the @file arguments, put before First,
	// and FirstImages their images, attached to it: with either, the
	// first prompt is sent as a prompt, never read as a command.
	FirstFiles  string
	FirstImages []ai.Content
	// Sandbox is the run's sandbox mode, shown in the banner ("" shows none).
	Sandbox string
}

// Chat is the interactive mode: one prompt per line, steering while a run
// is active, commands, and a status line after every run.
type Chat struct {
	in   LineReader
	scr  *screen
	pal  palette
	deps Deps
	opts Options
	rend *renderer

	mu          sync.Mutex // guards the fields below
	cur         Opened
	thinking    ai.ThinkingLevel
	unsub       func()
	op          *operation // the active run or compaction; nil when idle
	queued      []queuedInput
	next        []string // lines typed as the run settled: the next prompt
	activity    string
	interrupted bool   // the last input was Ctrl-C
	partial     string // lines so far of a multi-line input
	ctx         context.Context
	// failure is the first panic of the display or of a background
	// operation: it ends the chat (see fail).
	failure error
}

// operation is a run or a compaction in the background.
type operation struct {
	cancel context.CancelFunc
	done   chan struct{}
	rt     *runtime.Runtime
}

// queuedInput is a steering or follow-up message not yet taken.
type queuedInput struct {
	text     string
	followUp bool
}

// New returns a chat over the first Runtime; output goes to out,
// whole lines at a time, and, when out is a LiveWriter, the answer's line
// still arriving and a spinner while the chat waits in its live row.
func New(in LineReader, out io.Writer, first Opened, deps Deps, opts Options) *Chat {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Width == nil {
		opts.Width = func() int { return 80 }
	}
	live, _ := out.(LiveWriter)
	c := &Chat{in: in, scr: &screen{w: out, live: live}, pal: palette{on: opts.Color}, deps: deps, opts: opts, thinking: opts.Thinking}
	c.rend = &renderer{scr: c.scr, pal: c.pal, now: opts.Now, width: c.width, took: c.took, activity: c.setActivity}
	c.swap(first)
	return c
}

func (c *Chat) width() int { return max(c.opts.Width()-1, 20) }

// Run reads lines until the user quits. It returns after the active run
// (if any) was aborted and its messages were written, with the first
// output write error, if any. A cancelled ctx ends the chat like /quit.
// A panic of the display on the Agent's goroutine or of a background
// operation ends the chat too (see fail): Run returns it as an error.
func (c *Chat) Run(ctx context.Context) (err error) {
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
	c.scr.line(c.pal.dim(c.banner()))
	defer func() { // after shutdown: a panic while the run winds up counts too
		if f := c.failed(); f != nil {
			err = f
		}
	}()
	defer c.shutdown()
	if first := c.opts.First; c.opts.FirstFiles != "" || len(c.opts.FirstImages) > 0 {
		c.scr.line(c.pal.cyan("› " + oneline.Text(first, c.width()-2)))
		c.promptWith(ctx, c.opts.FirstFiles+first, c.opts.FirstImages)
	} else if first != "" {
		c.scr.line(c.pal.cyan("› " + oneline.Text(first, c.width()-2))) // shown as a typed line would be
		if c.handle(ctx, Line{Text: first}) {
			return c.scr.error()
		}
	}
	for ctx.Err() == nil && c.failed() == nil {
		c.updatePrompt()
		line, err := c.in.ReadLine()
		switch {
		case errors.Is(err, ErrInterrupt):
			if c.interrupt() {
				return c.scr.error()
			}
			continue
		case errors.Is(err, io.EOF):
			return c.scr.error()
		case c.failed() != nil:
			// The failure is Run's error; a line read as it came (the
			// reader was interrupted too late) is not acted on.
			return nil
		case err != nil:
			return err
		}
		c.mu.Lock()
		c.interrupted = false
		c.mu.Unlock()
		if c.handle(ctx, line) {
			break
		}
	}
	return c.scr.error()
}

func (c *Chat) banner() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	sb := ""
	if c.opts.Sandbox != "" {
		sb = " · sandbox " + c.opts.Sandbox
	}
	return "gopi chat · " + c.cur.Model.Provider + "/" + c.cur.Model.ID + sb + " · /help for commands · Ctrl-D quits"
}

// handle acts on one line; true means quit.
func (c *Chat) handle(ctx context.Context, line Line) bool {
	text, complete := c.assemble(line.Text)
	if !complete || strings.TrimSpace(text) == "" {
		return false
	}
	cmd, isCmd := ParseCommand(text)
	if c.busy() {
		return c.handleBusy(text, cmd, isCmd, line.FollowUp)
	}
	if isCmd {
		return c.command(ctx, cmd)
	}
	c.prompt(ctx, text)
	return false
}

// assemble joins lines ending in a backslash with the next line.
func (c *Chat) assemble(text string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.HasSuffix(text, "\\") {
		c.partial += strings.TrimSuffix(text, "\\") + "\n"
		return "", false
	}
	text, c.partial = c.partial+text, ""
	return text, true
}

// handleBusy: while a run is active a line steers it; /followup or
// Alt-Enter queues a follow-up; most commands wait. A prompt template or
// /skill:name is expanded as a prompt is (queue); another /word is
// steering text as it is, as pi 1.6 sends it.
func (c *Chat) handleBusy(text string, cmd Command, isCmd, followUp bool) bool {
	switch {
	case isCmd && cmd.Name == "followup":
		c.queue(cmd.Arg, true)
	case isCmd && cmd.Name == "quit":
		return true
	case isCmd && cmd.Name == "help":
		c.scr.lines(helpText)
	case isCmd && cmd.Name == "session":
		c.showSession()
	case isCmd:
		c.scr.line(c.pal.dim("a run is active: wait for it, or press Ctrl-C to abort it (typed lines steer it)"))
	default:
		c.queue(text, followUp)
	}
	return false
}

// interrupt handles Ctrl-C: abort the active run, else clear a
// multi-line input, else ask for a second Ctrl-C; true means quit.
func (c *Chat) interrupt() bool {
	c.mu.Lock()
	op, again := c.op, c.interrupted
	c.interrupted = true
	hadPartial := c.partial != ""
	c.partial = ""
	c.mu.Unlock()
	switch {
	case op != nil:
		// Said before cancelling: the run may end, and say so, at once.
		c.scr.line(c.pal.dim("aborting… (Ctrl-C again quits)"))
		op.cancel()
		op.rt.Control().Abort()
	case again:
		return true
	case hadPartial:
		c.scr.line(c.pal.dim("input cleared"))
	default:
		c.scr.line(c.pal.dim("press Ctrl-C again or Ctrl-D to quit"))
	}
	return false
}

// shutdown aborts the active run, waits until its messages are written,
// and releases the Runtime.
func (c *Chat) shutdown() {
	c.mu.Lock()
	op := c.op
	c.next = nil
	c.mu.Unlock()
	if op != nil {
		op.cancel()
		op.rt.Control().Abort()
		<-op.done
	}
	c.mu.Lock()
	cur, unsub := c.cur, c.unsub
	c.mu.Unlock()
	unsub()
	c.rend.stopSpinner()
	_ = cur.Runtime.Dispose(context.Background())
}

func (c *Chat) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.op != nil
}

// updatePrompt shows what a typed line will do.
func (c *Chat) updatePrompt() {
	c.mu.Lock()
	p := "› "
	switch {
	case c.partial != "":
		p = "… "
	case c.op != nil && c.activity != "":
		p = "[" + oneline.Text(c.activity, 40) + "] steer › "
	case c.op != nil:
		p = "steer › "
	}
	c.mu.Unlock()
	c.in.SetPrompt(p)
}

func (c *Chat) setActivity(what string) {
	c.mu.Lock()
	c.activity = what
	c.mu.Unlock()
	c.updatePrompt()
}

// fail ends the chat after a panic in its display or in a background
// operation. The Agent recovers a subscriber's panic and goes on, so the
// chat must act itself, or it would wait for input under a display that
// no longer works: the screen stops writing (the terminal is about to be
// given back), the line reader is interrupted, and Run, once the active
// run was aborted and its messages written, returns the failure.
func (c *Chat) fail(p any) {
	c.mu.Lock()
	first := c.failure == nil
	if first {
		c.failure = fmt.Errorf("internal error: the chat failed: %v", p)
	}
	c.mu.Unlock()
	if first {
		c.scr.stop()
		c.in.Interrupt()
	}
}

// recoverPanic, deferred, turns a panic into the chat's failure.
func (c *Chat) recoverPanic() {
	if p := recover(); p != nil {
		c.fail(p)
	}
}

func (c *Chat) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failure
}

// display draws one of the Runtime's events (the Agent's subscriber).
func (c *Chat) display(e agent.Event) {
	defer c.recoverPanic()
	c.rend.event(e)
}

// swap makes o the current Runtime and releases the previous one.
func (c *Chat) swap(o Opened) {
	c.mu.Lock()
	old, unsub := c.cur, c.unsub
	c.cur = o
	c.unsub = o.Runtime.Control().Subscribe(c.display, agent.Except(agent.RunEnd))
	c.mu.Unlock()
	if unsub != nil {
		unsub()
	}
	if old.Runtime != nil && old.Runtime != o.Runtime {
		_ = old.Runtime.Dispose(context.Background())
	}
}

func (c *Chat) current() Opened {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}
