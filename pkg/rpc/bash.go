package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"gopi/pkg/ai"
	"gopi/pkg/mode"
	"gopi/pkg/runtime"
	"gopi/pkg/tools"
)

// bashCalls numbers the tool calls of rpc's bash command.
var bashCalls atomic.Int64

// cmdBash runs a shell command for the client through the Runtime's bash
// tool (its hooks, its scrubbing of keys, its spill file), streams all of
// its output as bash_execution_update events (one per piece read, none
// held back by the partial results' throttle), records the command and its
// output as pi's bashExecution message (the next prompt's model sees it,
// unless excludeFromContext), and answers with pi's BashResult. As pi's,
// it runs in the background beside a run or another command, so that
// abort_bash reaches it; a message of a command that ends while a run goes
// on is held until the run ends (so that it never splits a tool call from
// its result) and recorded before agent_settled.
func (r *Server) cmdBash(_ context.Context, c *rpcCommand) (any, error) {
	command, err := need(c.Command, "command")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &bashRun{cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	rt := r.cur.Runtime
	r.bashes = append(r.bashes, b)
	r.mu.Unlock()
	args, _ := json.Marshal(map[string]string{"command": command})
	call := ai.ToolCallContent(fmt.Sprintf("rpc_bash_%d", bashCalls.Add(1)), "bash", args)
	go func() {
		defer close(b.done)
		defer cancel()
		// Every piece of output as it is read, as pi streams it: the
		// deltas joined are the whole output, the last one written before
		// the response.
		stream := tools.WithOutput(ctx, func(delta string) { r.bashUpdate(c.ID, delta) })
		res, err := rt.RunTool(stream, call, nil)
		var out any
		if err == nil {
			b := bashResult(res, ctx.Err() != nil)
			out = b
			err = r.recordBash(b.message(command, c.ExcludeFromContext, r.now().UnixMilli()))
		}
		if errors.Is(err, runtime.ErrNoTool) {
			err = errors.New("the bash tool is not among this session's tools (see --tools)")
		}
		r.mu.Lock()
		r.bashes = slices.DeleteFunc(r.bashes, func(x *bashRun) bool { return x == b })
		r.mu.Unlock()
		r.reply(c.ID, "bash", out, err)
	}()
	return nil, errAnswered
}

// bashRun is a bash command going on.
type bashRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// recordBash records a command's message in the current Runtime, or,
// while a run goes on, holds it for the run's end (heldBash).
func (r *Server) recordBash(m ai.Message) error {
	r.mu.Lock()
	if op := r.op; op != nil && !op.compact {
		r.heldBash = append(r.heldBash, m)
		r.mu.Unlock()
		return nil
	}
	rt := r.cur.Runtime
	r.mu.Unlock()
	_, err := rt.Record(context.Background(), m)
	return err
}

// recordHeld records the messages of bash commands that ended during the
// run that is ending, in the current Runtime; r.mu is held, the run's
// operation over.
func (r *Server) recordHeld() {
	held := r.heldBash
	r.heldBash = nil
	for _, m := range held {
		if _, err := r.cur.Runtime.Record(context.Background(), m); err != nil {
			fmt.Fprintf(r.diag, "gopi: recording a bash command's output: %v\n", err)
		}
	}
}

// cmdAbortBash stops the bash commands going on; their responses follow
// with cancelled true, before this one's.
func (r *Server) cmdAbortBash(_ context.Context, _ *rpcCommand) (any, error) {
	r.stopBash()
	return nil, nil
}

// stopBash cancels the bash commands going on and waits for them.
func (r *Server) stopBash() {
	r.mu.Lock()
	bashes := slices.Clone(r.bashes)
	r.mu.Unlock()
	for _, b := range bashes {
		b.cancel()
	}
	for _, b := range bashes {
		<-b.done
	}
}

// bashUpdate writes a bash_execution_update: pi's shape, with the
// command's id when it had one.
func (r *Server) bashUpdate(id *string, delta string) {
	v := struct {
		Type    string  `json:"type"`
		Version int     `json:"schemaVersion"`
		ID      *string `json:"id,omitempty"`
		Delta   string  `json:"delta"`
	}{"bash_execution_update", mode.SchemaVersion, id, delta}
	r.w.JSON(v)
}

func resultText(res tools.Result) string {
	var b strings.Builder
	for _, c := range res.Content {
		if c.Type == ai.TypeText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// rpcBashResult is pi's BashResult.
type rpcBashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode,omitempty"` // left out when cancelled, as pi
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// bashEnding is how the bash tool ends its text: an exit code other than
// 0, or an abort.
var bashEnding = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\n\n(?:Command exited with code (-?\d+)|Command aborted)$`)
})

// bashResult reads the bash tool's result back into pi's BashResult.
func bashResult(res tools.Result, cancelled bool) rpcBashResult {
	text, ending := splitEnding(resultText(res))
	code := 0
	switch {
	case ending == "aborted":
		cancelled = true
	case ending != "":
		code, _ = strconv.Atoi(ending)
	}
	if text == "(no output)" {
		text = ""
	}
	out := rpcBashResult{Output: text, Cancelled: cancelled}
	if !cancelled {
		out.ExitCode = &code
	}
	if d, ok := res.Details.(*tools.BashDetails); ok && d != nil {
		out.Truncated, out.FullOutputPath = true, d.FullOutputPath
		// pi's output is the kept tail alone: the tool's notice of the
		// cut is what truncated and fullOutputPath say.
		if i := strings.LastIndex(out.Output, "\n\n[Showing "); i >= 0 && d.Truncation != nil {
			out.Output = out.Output[:i]
		}
	}
	return out
}

// splitEnding takes the bash tool's last line off its text: the exit
// code (other than 0) or "aborted"; "" when it ended with 0.
func splitEnding(text string) (output, ending string) {
	m := bashEnding().FindStringSubmatchIndex(text)
	if m == nil {
		return text, ""
	}
	if m[2] >= 0 {
		return text[:m[0]], text[m[2]:m[3]]
	}
	return text[:m[0]], "aborted"
}

// message is pi's bashExecution message of the command.
func (b rpcBashResult) message(command string, exclude bool, now int64) ai.Message {
	x := map[string]json.RawMessage{}
	set := func(k string, v any) { x[k], _ = json.Marshal(v) }
	set("command", command)
	set("timestamp", now)
	set("output", b.Output)
	if b.ExitCode != nil {
		set("exitCode", b.ExitCode)
	}
	set("cancelled", b.Cancelled)
	set("truncated", b.Truncated)
	if b.FullOutputPath != "" {
		set("fullOutputPath", b.FullOutputPath)
	}
	if exclude {
		set("excludeFromContext", true)
	}
	return ai.Message{Role: "bashExecution", Extra: x}
}
