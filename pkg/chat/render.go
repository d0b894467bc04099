package chat

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/oneline"
)

// renderer draws a run's events as they arrive: answer text line by
// line, thinking as one dim line, one line per tool call, and the
// steering the loop took. Events come from the Agent's dispatcher, one
// at a time; the chat reads queued state under its own lock.
type renderer struct {
	scr   *screen
	pal   palette
	now   func() time.Time
	width func() int
	// took is told when the loop took a queued steering or follow-up
	// message; activity when a tool starts ("" when none runs).
	took     func(text string)
	activity func(what string)

	mu       sync.Mutex
	text     wrapper
	thinking strings.Builder
	started  map[string]toolCall
	users    int // user messages started in this run (the first is the prompt)
	// label is what the live row's spinner says while the chat waits
	// ("" when it does not), frame its turn, spin its goroutine.
	label string
	frame int
	spin  *liveSpinner
}

// toolCall is a running tool call: when it started and its key argument.
type toolCall struct {
	at  time.Time
	arg string
}

func (r *renderer) event(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Type {
	case loop.AgentStart:
		r.users, r.started = 0, map[string]toolCall{}
		r.text = wrapper{width: r.width()}
		r.startSpinner()
		r.waiting(waitingForModel)
	case loop.MessageStart:
		if e.Message != nil && e.Message.Role == ai.RoleUser {
			r.users++
			if r.users > 1 {
				r.took(e.Message.Text())
			}
		}
	case loop.MessageUpdate:
		r.stream(e.Stream)
	case loop.MessageEnd:
		r.messageEnd()
		if e.Message != nil && e.Message.Role == ai.RoleAssistant {
			r.waiting("")
		}
	case loop.ToolStart:
		r.started[e.ToolCallID] = toolCall{at: r.now(), arg: oneline.KeyArgument(e.Args)}
		r.activity(e.ToolName + oneline.KeyArgument(e.Args))
		r.waiting(e.ToolName + oneline.KeyArgument(e.Args))
	case loop.ToolEnd:
		r.toolEnd(e)
		if len(r.started) == 0 {
			r.waiting(waitingForModel) // the model is asked again
		}
	case loop.ToolUpdate:
		r.subagent(e)
	case loop.AgentEnd:
		r.flushText() // an answer that never ended (its write failed) still shows
		r.waiting("")
	default:
		r.notice(e)
	}
}

// stream handles one model stream event.
func (r *renderer) stream(s *ai.Event) {
	if s == nil {
		return
	}
	switch s.Type {
	case ai.EventThinkingDelta:
		r.thinking.WriteString(s.Delta)
	case ai.EventThinkingEnd:
		r.showThinking()
	case ai.EventTextDelta:
		for _, l := range r.text.add(s.Delta) {
			r.scr.line(l)
		}
		r.waiting("") // the line still arriving shows in the live row
	case ai.EventTextEnd:
		r.flushText()
	}
}

func (r *renderer) flushText() {
	for _, l := range r.text.flush() {
		r.scr.line(l)
	}
}

// showThinking collapses the thinking into one dim line.
func (r *renderer) showThinking() {
	t := strings.TrimSpace(r.thinking.String())
	r.thinking.Reset()
	if t == "" {
		return
	}
	words := len(strings.Fields(t))
	r.scr.line(r.pal.dim(fmt.Sprintf("∴ thinking (%d words): %s", words, oneline.Text(t, max(r.width()-30, 20)))))
}

// messageEnd flushes the answer. A failed answer's error is not shown
// here: it ends the run, and the run's report says it once, with its class.
func (r *renderer) messageEnd() {
	r.flushText()
	if r.thinking.Len() > 0 {
		r.showThinking()
	}
}

// toolEnd writes the call's one line: name, key argument, elapsed time,
// ok or error, and the start of its output.
func (r *renderer) toolEnd(e agent.Event) {
	r.activity("")
	call := r.started[e.ToolCallID]
	elapsed := r.now().Sub(call.at)
	delete(r.started, e.ToolCallID)
	mark, status := r.pal.green("✓"), "ok"
	if e.IsError {
		mark, status = r.pal.red("✗"), r.pal.red("error")
	}
	line := fmt.Sprintf("%s %s%s %s %s", mark, r.pal.bold(e.ToolName), call.arg,
		r.pal.dim(fmt.Sprintf("%.1fs", elapsed.Seconds())), status)
	if p := resultPreview(e.Event.Result, max(r.width()-40, 20)); p != "" {
		line += r.pal.dim(" — " + p)
	}
	r.scr.line(line)
}

// resultPreview is the first line of a tool's output, shortened.
func resultPreview(out *loop.ToolOutput, n int) string {
	if out == nil {
		return ""
	}
	var parts []string
	for _, c := range out.Content {
		if c.Type == ai.TypeText {
			parts = append(parts, c.Text)
		}
	}
	return oneline.Text(strings.Join(parts, "\n"), n)
}

// notice writes retries and compactions as dim lines, a cut of the
// context in red.
func (r *renderer) notice(e agent.Event) {
	switch e.Type {
	case loop.RetryStart:
		r.text = wrapper{width: r.width()}
		r.scr.line(r.pal.dim(fmt.Sprintf("retrying (%d of %d): %s", e.Retry.Attempt, e.Retry.MaxAttempts-1, e.Retry.ErrorMessage)))
	case loop.CompactionStart:
		r.scr.line(r.pal.dim("compacting the context (" + e.Compaction.Reason + ")…"))
	case loop.SummaryRetryScheduled:
		r.scr.line(r.pal.dim(fmt.Sprintf("retrying the summary (%d of %d): %s", e.Retry.Attempt, e.Retry.MaxAttempts-1, e.Retry.ErrorMessage)))
	case loop.CompactionEnd:
		switch {
		case e.Compaction.Aborted:
			r.scr.line(r.pal.dim("compaction cancelled"))
			return
		case e.Compaction.ErrorMessage != "":
			r.scr.line(r.pal.red(e.Compaction.ErrorMessage))
			return
		}
		r.scr.line(r.pal.dim(fmt.Sprintf("compacted: %s tokens summarised", formatTokens(int64(e.Compaction.TokensBefore)))))
	case loop.ContextTrimmed:
		r.scr.line(r.pal.red(oneline.Trim(e.Trim)))
	}
}

// finish writes what is still buffered when a run ends, and removes the
// live row.
func (r *renderer) finish() {
	r.mu.Lock()
	r.flushText()
	r.thinking.Reset()
	r.waiting("")
	r.mu.Unlock()
	r.stopSpinner()
}

// subagent shows a task call's child run under the call: each tool call
// of the child as it ends, indented, and what it runs in the live row.
// Updates of other tools are not shown.
func (r *renderer) subagent(e agent.Event) {
	if e.ToolName != "task" || e.Event.Result == nil || len(e.Event.Result.Details) == 0 {
		return
	}
	var d struct {
		Event struct {
			Type     string          `json:"type"`
			ToolName string          `json:"toolName"`
			Args     json.RawMessage `json:"args"`
			IsError  bool            `json:"isError"`
		} `json:"event"`
	}
	var args struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(e.Event.Result.Details, &d) != nil {
		return
	}
	_ = json.Unmarshal(e.Args, &args)
	what := d.Event.ToolName + oneline.KeyArgument(d.Event.Args)
	switch d.Event.Type {
	case "tool_execution_start":
		r.waiting("task " + args.Description + ": " + what)
	case "tool_execution_end":
		mark := r.pal.green("✓")
		if d.Event.IsError {
			mark = r.pal.red("✗")
		}
		r.scr.line("  " + r.pal.dim("↳ "+args.Description+":") + " " + mark + " " + d.Event.ToolName)
	}
}
