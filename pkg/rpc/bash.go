package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
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
// unless excludeFromContext), and answers with pi's BashResult. It runs in
// the background, so that abort_bash reaches it; no run starts meanwhile.
func (r *Server) cmdBash(_ context.Context, c *rpcCommand) (any, error) {
	command, err := need(c.Command, "command")
	if err != nil {
		return nil, err
	}
	op, ctx, err := r.startOp(rpcOp{bash: true})
	if err != nil {
		return nil, err
	}
	rt := op.rt
	args, _ := json.Marshal(map[string]string{"command": command})
	call := ai.ToolCallContent(fmt.Sprintf("rpc_bash_%d", bashCalls.Add(1)), "bash", args)
	go func() {
		defer close(op.done)
		defer op.cancel()
		// Every piece of output as it is read, as pi streams it: the
		// deltas joined are the whole output, the last one written before
		// the response.
		stream := tools.WithOutput(ctx, func(delta string) { r.bashUpdate(c.ID, delta) })
		res, err := rt.RunTool(stream, call, nil)
		var out any
		if err == nil {
			b := bashResult(res, ctx.Err() != nil)
			out = b
			_, err = rt.Record(context.Background(), b.message(command, c.ExcludeFromContext, r.now().UnixMilli()))
		}
		if errors.Is(err, runtime.ErrNoTool) {
			err = errors.New("the bash tool is not among this session's tools (see --tools)")
		}
		r.mu.Lock()
		r.op = nil
		next := r.next
		r.next = nil
		if len(next) > 0 {
			r.launch(next)
		}
		r.mu.Unlock()
		r.reply(c.ID, "bash", out, err)
	}()
	return nil, errAnswered
}

// cmdAbortBash stops the running bash command; its response follows
// with cancelled true.
func (r *Server) cmdAbortBash(_ context.Context, _ *rpcCommand) (any, error) {
	r.mu.Lock()
	op := r.op
	r.mu.Unlock()
	if op != nil && op.bash {
		op.cancel()
		<-op.done
	}
	return nil, nil
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
