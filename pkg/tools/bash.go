package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"gopi/pkg/ai"
)

const bashSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "Bash command to execute"},
    "timeout": {"type": "number", "description": "Timeout in seconds (optional, default %s, at most %s)"}
  },
  "required": ["command"]
}`

// DefaultBashTimeout bounds a bash call that names no timeout; pi has none,
// gopi never lets a command hang a run.
const DefaultBashTimeout = 120 * time.Second

// MaxBashTimeout is the longest timeout a call may ask for.
const MaxBashTimeout = 24 * time.Hour

// BashTool is the built-in bash tool. Each call runs `bash -c` in its own
// process group with stdin closed and stdout and stderr merged; on timeout
// or cancellation the whole group is killed and the call returns within a
// bounded wait. Output is kept as a bounded tail, spilled to a temp file
// (bounded too: head and tail) when it is over the limits. Env.Secrets are
// scrubbed from the output as it streams, before it is kept anywhere.
type BashTool struct {
	shell    string
	timeout  time.Duration
	interval time.Duration
	maxSpill int
}

// NewBash returns the bash tool.
func NewBash(opts Options) *BashTool {
	t := &BashTool{shell: opts.Shell, timeout: opts.BashTimeout, interval: opts.UpdateInterval, maxSpill: opts.MaxSpillBytes}
	if t.maxSpill <= 0 {
		t.maxSpill = DefaultMaxSpillBytes
	}
	if t.shell == "" {
		t.shell = findShell()
	}
	if t.timeout <= 0 {
		t.timeout = DefaultBashTimeout
	}
	if t.interval <= 0 {
		t.interval = 100 * time.Millisecond
	}
	return t
}

// BashDetails are the details of a bash result, as pi's.
type BashDetails struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
	// FullOutputTruncated says the file at FullOutputPath lacks the middle
	// of the output: it was over the spill limit.
	FullOutputTruncated bool `json:"fullOutputTruncated,omitempty"`
}

// Spec describes the tool as pi does, with gopi's default timeout.
func (t *BashTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{
		Name: "bash",
		Description: fmt.Sprintf("Execute a bash command in the current working directory. Returns stdout and stderr. "+
			"Output is truncated to last %d lines or %dKB (whichever is hit first). If truncated, full output is saved to a temp file "+
			"(up to %s; past that its start and end). Optionally provide a timeout in seconds.", DefaultMaxLines, DefaultMaxBytes/1024, formatSize(max(t.maxSpill, minSpillBytes))) + shellNote(t.shell),
		Parameters: json.RawMessage(fmt.Sprintf(bashSchema, seconds(t.timeout), seconds(MaxBashTimeout))),
	}
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

type bashArgs struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

// Run executes one command.
func (t *BashTool) Run(ctx context.Context, call Call) (Result, error) {
	var a bashArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	if st, err := os.Stat(call.Env.Cwd); err != nil || !st.IsDir() {
		return ErrorResult(fmt.Sprintf("Working directory does not exist: %s\nCannot execute bash commands.", call.Env.Cwd)), nil
	}
	timeout, label := t.timeout, seconds(t.timeout)
	if a.Timeout != nil {
		label = strconv.FormatFloat(*a.Timeout, 'f', -1, 64)
		if !(*a.Timeout > 0 && *a.Timeout <= MaxBashTimeout.Seconds()) {
			return ErrorResult(fmt.Sprintf("Invalid timeout %s: give seconds above 0 and at most %s (24 hours), "+
				"or leave it out for the default of %s seconds.", label, seconds(MaxBashTimeout), seconds(t.timeout))), nil
		}
		timeout = time.Duration(*a.Timeout * float64(time.Second))
	}
	sink := newOutputSink(call.Env.tempDir(), t.maxSpill)
	p := &process{shell: t.shell, env: call.Env, sink: sink, update: t.throttled(call.Update, sink), output: outputFrom(ctx)}
	before := call.Env.Changes.snapshot(ctx, call.Env)
	end := p.run(ctx, a.Command, timeout)
	call.Env.Changes.compare(ctx, call.Env, before)
	return explainRefusal(call.Env, "bash", a.Command, end.failed(), t.result(sink, end, label)), nil
}

// throttled returns the reader's progress callback: at most one partial
// result per interval.
func (t *BashTool) throttled(update func(Result), sink *outputSink) func() {
	var last time.Time
	return func() {
		if now := time.Now(); now.Sub(last) >= t.interval {
			last = now
			text, tr, _ := sink.tail()
			update(Result{Content: textContent(text), Details: bashDetails(sink, tr)})
		}
	}
}

// bashDetails are a result's details, or nil (no *BashDetails(nil) in an
// interface, which would be recorded as "details": null) when the output
// is whole and was not saved.
func bashDetails(sink *outputSink, tr Truncation) any {
	d := &BashDetails{FullOutputPath: sink.spillPath(), FullOutputTruncated: sink.spill != nil && sink.spill.truncated()}
	if tr.Truncated {
		d.Truncation = &tr
	}
	if d.Truncation == nil && d.FullOutputPath == "" {
		return nil
	}
	return d
}

// result renders the output and how the command ended, as pi does.
func (t *BashTool) result(sink *outputSink, end ending, timeoutLabel string) Result {
	text, tr, invalid := sink.tail()
	if text == "" {
		text = "(no output)"
	}
	var notes []string
	if tr.Truncated {
		notes = append(notes, sink.notice(tr))
	}
	if invalid {
		notes = append(notes, "[Output was not valid UTF-8; invalid bytes are shown as U+FFFD]")
	}
	if len(notes) > 0 {
		text += "\n\n" + strings.Join(notes, "\n")
	}
	res := Result{Details: bashDetails(sink, tr)}
	switch {
	case end.startErr != nil:
		return ErrorResult(fmt.Sprintf("Cannot run the command: %v", end.startErr))
	case end.aborted:
		text += "\n\nCommand aborted"
	case end.timedOut:
		text += fmt.Sprintf("\n\nCommand timed out after %s seconds", timeoutLabel)
	case end.signal != "":
		text += fmt.Sprintf("\n\nCommand was killed by signal %s", end.signal)
	case end.code != 0:
		text += fmt.Sprintf("\n\nCommand exited with code %d", end.code)
	}
	res.Content = textContent(text)
	res.IsError = end.aborted || end.timedOut || end.signal != "" || end.code != 0
	return res
}
