package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"gopi/internal/lines"
	"gopi/internal/pijson"
	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/oneline"
	"gopi/pkg/runtime"
)

// Server is the rpc mode (pi 1.6's --mode rpc): one JSON command per line
// on stdin, one JSON object per line on stdout, the responses to the
// commands and the session events exactly as events mode writes them
// (one encoder: mode.Lines and its EventStream), without a header line.
// Records end at LF only. Runs, compactions and session names go on in
// the background while further commands are read, so that steer,
// follow_up and abort reach a running run.
type Server struct {
	host   Host
	w      *mode.Lines
	out    *watchedOut
	diag   io.Writer
	now    func() time.Time
	bounds func(on bool)
	// maxLine bounds a command line (Options.MaxLine).
	maxLine int

	boundMu  sync.Mutex
	stopping bool // the mode is ending: writes stay bounded

	mu       sync.Mutex // guards the fields below
	cur      Opened
	thinking ai.ThinkingLevel
	steering agent.QueueMode
	followUp agent.QueueMode
	stream   *mode.EventStream
	unsub    func()
	op       *rpcOp     // the run or compaction going on; nil when idle
	bashes   []*bashRun // the bash commands going on
	// heldBash are the messages of bash commands that ended during the
	// run going on: recorded when it ends.
	heldBash []ai.Message
	next     []ai.Message // prompts queued while a run was ending: the next run
	retry    ai.RetryControl
	// idleSteer and idleFollowUp were queued while idle: the next prompt
	// delivers them after its own message.
	idleSteer, idleFollowUp []ai.Message
	// pending is a model or thinking level asked for while a run was
	// going on: the Runtime it asks for replaces the run's when it ends.
	pending *Want
	// pendingModel is pending's model, which get_state already says.
	pendingModel *ai.Info
	// pendingAuto is automatic compaction switched during a run, for
	// the Runtime after it.
	pendingAuto *bool
}

// rpcOp is the operation going on in the background.
type rpcOp struct {
	compact bool
	cancel  context.CancelFunc
	done    chan struct{}
	rt      *runtime.Runtime
}

// Options configure a Server.
type Options struct {
	Thinking ai.ThinkingLevel
	Now      func() time.Time
	// Bound, when set, is called with true when a run is cancelled (an
	// abort, stdin's end, ctx's end): from then on a write to out, one
	// already waiting included, should fail after a bounded wait for a
	// reader that stopped reading; with false when an abort is answered
	// and the mode goes on. A failed write ends the mode as a reader gone
	// away does.
	Bound func(on bool)
	// MaxLine bounds a command line in bytes (0: DefaultMaxLine). A
	// longer one is answered with success false and skipped to its end.
	MaxLine int
}

// DefaultMaxLine is a command line's bound when Options gives none.
const DefaultMaxLine = 64 << 20

// ErrInputEnded marks Serve's output error when it came after stdin
// ended: the client was done.
var ErrInputEnded = errors.New("stdin ended")

// NewServer returns the rpc mode over the first Runtime; protocol records
// go to out, diagnostics to diag.
func NewServer(out, diag io.Writer, first Opened, host Host, opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	wo := &watchedOut{w: out, failed: make(chan struct{})}
	r := &Server{maxLine: opts.MaxLine, host: host, w: mode.NewLines(wo), out: wo, diag: diag, now: opts.Now, bounds: opts.Bound, thinking: opts.Thinking,
		steering: agent.OneAtATime, followUp: agent.OneAtATime}
	r.swap(first)
	return r
}

// Serve reads commands from in until it ends, ctx is cancelled or a
// write to out fails (its reader went away, or did not read), then
// aborts what is going on, waits until its messages are in the session,
// and releases the Runtime. It returns the first output write error
// (marked ErrInputEnded when stdin had ended).
func (r *Server) Serve(ctx context.Context, in io.Reader) error {
	lines := make(chan inLine)
	stop := make(chan struct{})
	defer close(stop)
	// A command being answered may wait on a write: the end of ctx or
	// of stdin bounds that wait from here, not from the loop below.
	defer context.AfterFunc(ctx, r.stop)()
	go func() {
		defer close(lines)
		defer r.stop()
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			l, err := readLine(br, r.maxLine)
			if len(l.b) > 0 || l.over {
				select {
				case lines <- l:
				case <-stop:
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Fprintf(r.diag, "gopi: reading stdin: %v\n", err)
				}
				return
			}
		}
	}()
	for {
		select {
		case l, ok := <-lines:
			b := l.b
			if l.over {
				r.reply(nil, "parse", nil, fmt.Errorf("Failed to parse command: the line is longer than %d bytes, the most gopi rpc reads in one command (maxPromptBytes and room for images): it was skipped; send a shorter prompt or smaller images, or raise maxPromptBytes", r.maxLine))
				continue
			}
			if !ok {
				r.shutdown()
				if err := r.writeErr(); err != nil {
					return errors.Join(ErrInputEnded, err)
				}
				return nil
			}
			b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
			if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			r.handle(ctx, b)
		case <-ctx.Done():
			r.shutdown()
			return r.writeErr()
		case <-r.out.failed:
			// Nobody reads the protocol any more: end as at a signal.
			r.stop()
			r.shutdown()
			return r.writeErr()
		}
	}
}

// inLine is a command line read, or one over the bound (over, b nil).
type inLine struct {
	b    []byte
	over bool
}

// readLine reads one command line of at most max bytes (lines.Read).
func readLine(br *bufio.Reader, max int) (inLine, error) {
	b, over, err := lines.Read(br, max)
	return inLine{b: b, over: over}, err
}

// stop bounds every write from now on: the mode is ending.
func (r *Server) stop() {
	r.boundMu.Lock()
	defer r.boundMu.Unlock()
	r.stopping = true
	if r.bounds != nil {
		r.bounds(true)
	}
}

// bound bounds the writes while an abort waits for its run (on), or
// lifts that once it is answered, unless the mode is ending.
func (r *Server) bound(on bool) {
	r.boundMu.Lock()
	defer r.boundMu.Unlock()
	if r.bounds != nil && (on || !r.stopping) {
		r.bounds(on)
	}
}

// watchedOut is the protocol's output: failed is closed at the first
// write that fails.
type watchedOut struct {
	w      io.Writer
	once   sync.Once
	failed chan struct{}
}

func (o *watchedOut) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		o.once.Do(func() { close(o.failed) })
	}
	return n, err
}

func (r *Server) writeErr() error {
	return r.w.Err()
}

// shutdown aborts the operation going on, waits for it, and releases
// the Runtime.
func (r *Server) shutdown() {
	r.mu.Lock()
	op := r.op
	r.next = nil
	r.mu.Unlock()
	if op != nil {
		op.cancel()
		op.rt.Control().Abort()
	}
	r.stopBash()
	if op != nil {
		<-op.done
	}
	r.mu.Lock()
	cur, unsub := r.cur, r.unsub
	r.mu.Unlock()
	unsub()
	_ = cur.Runtime.Dispose(context.Background())
	r.w.Close()
}

// swap makes o the current Runtime: events are written from its Agent
// from now on, the queue modes carry over, and the previous one is
// released.
func (r *Server) swap(o Opened) {
	r.mu.Lock()
	old, unsub := r.cur, r.unsub
	r.cur = o
	if o.Thinking != "" {
		r.thinking = o.Thinking
	}
	stream := r.w.EventStream(o.Model, r.now)
	r.stream = stream
	r.unsub = o.Runtime.Control().Subscribe(func(e agent.Event) { stream.Event(e.Event) }, agent.Except(agent.RunEnd))
	o.Runtime.Control().SetQueueModes(r.steering, r.followUp)
	r.mu.Unlock()
	if unsub != nil {
		unsub()
	}
	if old.Runtime != nil && old.Runtime != o.Runtime {
		_ = old.Runtime.Dispose(context.Background())
	}
}

func (r *Server) current() (Opened, *mode.EventStream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur, r.stream
}

func (r *Server) level() ai.ThinkingLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.thinking == "" {
		return ai.ThinkingOff
	}
	return r.thinking
}

// busy reports the operation going on (nil when idle).
func (r *Server) busy() *rpcOp {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.op
}

// response is one reply to a command.
type response struct {
	ID      *string         `json:"id,omitempty"`
	Type    string          `json:"type"`
	Version int             `json:"schemaVersion"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// reply writes a command's response: data nil for none, a JSON null
// written as null.
func (r *Server) reply(id *string, command string, data any, err error) {
	resp := response{ID: id, Type: "response", Version: mode.SchemaVersion, Command: command, Success: err == nil}
	switch {
	case err != nil:
		resp.Error = err.Error()
	case data != nil:
		b, merr := pijson.Marshal(data)
		if merr != nil {
			resp.Success, resp.Error = false, "encoding the answer failed: "+merr.Error()
			break
		}
		resp.Data = b
	}
	r.w.JSON(resp)
}

// notice writes a session event of rpc's own (session_info_changed,
// thinking_level_changed), in pi's shape.
func (r *Server) notice(typ, key, value string) {
	b, _ := pijson.Marshal(value)
	r.w.Line([]byte(`{"type":"` + typ + `","schemaVersion":` + strconv.Itoa(mode.SchemaVersion) + `,"` + key + `":` + string(b) + `}`))
}

// nullJSON is a data field written as null (pi's "no result").
var nullJSON = json.RawMessage("null")

// start runs msgs as the next run in the background. The caller has
// checked that nothing is going on.
func (r *Server) start(msgs []ai.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.launch(msgs)
}

// launch starts the run; r.mu is held. Prompts queued while the run was
// ending start the next run as soon as it settled, unless it was
// aborted.
func (r *Server) launch(msgs []ai.Message) {
	if len(r.idleSteer)+len(r.idleFollowUp) > 0 {
		// pi delivers them with the prompt, its queue emptied after
		// the prompt's own message.
		msgs = append(append(slices.Clone(msgs), r.idleSteer...), r.idleFollowUp...)
		r.idleSteer, r.idleFollowUp = nil, nil
		r.stream.QueueAfter(1)
	}
	ctx, cancel := context.WithCancel(ai.WithRetryControl(context.Background(), &r.retry))
	rt, stream := r.cur.Runtime, r.stream
	op := &rpcOp{cancel: cancel, done: make(chan struct{}), rt: rt}
	r.op = op
	unsent := rt.Control().Subscribe(func(e agent.Event) {
		for _, m := range e.Unsent {
			fmt.Fprintf(r.diag, "gopi: not sent (the run ended first): %s\n", oneline.Text(m.Text(), 60))
		}
	}, agent.Only(agent.RunEnd))
	go func() {
		defer close(op.done)
		defer cancel()
		res, err := rt.Prompt(ctx, msgs...)
		unsent()
		r.applyPending(rt)
		switch {
		case err != nil:
			fmt.Fprintf(r.diag, "gopi: %v\n", err)
		case res.Err != nil && res.Reason != loop.ReasonAborted:
			fmt.Fprintf(r.diag, "gopi: %s: %v\n", mode.Classify(&res, err), res.Err)
		}
		// Idle before agent_settled is written: a client that reads it
		// may change the session at once. Under r.mu, so that no new run
		// writes to the stream before it.
		r.mu.Lock()
		defer r.mu.Unlock()
		r.op = nil
		r.recordHeld()
		stream.Settled(res.Reason)
		next := r.next
		r.next = nil
		if len(next) > 0 && ctx.Err() == nil && err == nil {
			r.launch(next)
		}
	}()
}

// applyPending builds the Runtime a set_model, cycle_model or
// set_thinking_level during the run asked for, at the run's leaf, and
// records the switch in the session.
func (r *Server) applyPending(rt *runtime.Runtime) {
	r.mu.Lock()
	p, auto := r.pending, r.pendingAuto
	r.pending, r.pendingModel, r.pendingAuto = nil, nil, nil
	r.mu.Unlock()
	if p != nil {
		p.Leaf = rt.Leaf()
		if p.Thinking == "" {
			p.Thinking = r.level()
		}
		o, err := r.host.Open(*p)
		if err != nil {
			fmt.Fprintf(r.diag, "gopi: switching the model after the run: %v\n", err)
		} else {
			r.swap(o)
			rt = o.Runtime
			if err := o.Runtime.RecordSettings(context.Background()); err != nil {
				fmt.Fprintf(r.diag, "gopi: %v\n", err)
			}
		}
	}
	if auto != nil {
		w := Want{Leaf: rt.Leaf(), Thinking: r.level()}
		o, err := r.host.SetAutoCompaction(*auto, w)
		if err != nil {
			fmt.Fprintf(r.diag, "gopi: switching automatic compaction after the run: %v\n", err)
			return
		}
		r.swap(o)
	}
}

// errBusy refuses a command that needs the session idle.
var errBusy = errors.New("a run is active: wait for agent_settled, or send abort first")
