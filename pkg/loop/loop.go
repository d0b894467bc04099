// Package loop runs one agent run: it asks the model, runs the tool calls
// of each answer as one concurrent batch, appends the results in call
// order, and repeats until the model stops, fails, is aborted, or the step
// limit is reached. Every tool call it records gets exactly one result,
// also when the run is cancelled mid-batch; a model failure becomes an
// assistant message with stopReason error, and the messages already made
// stay in the transcript. Events follow pi's names and order.
package loop

import (
	"context"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// Executor runs tool calls. *tools.Registry implements it; the extension
// host wraps it. Execute must return a result for every call.
type Executor interface {
	Specs() []ai.ToolSpec
	Execute(ctx context.Context, call ai.Content, update func(tools.Result)) tools.Result
}

// DefaultMaxSteps bounds the model requests of one run.
const DefaultMaxSteps = 100

// DefaultToolGrace is how long a cancelled run still waits for tools that
// have not returned; a call still running then gets an aborted result.
const DefaultToolGrace = 2 * time.Second

// Config is everything one run needs.
type Config struct {
	Model        ai.Model
	SystemPrompt string
	Tools        Executor // nil: no tools
	MaxSteps     int      // model requests; 0 means DefaultMaxSteps
	MaxTokens    int
	Thinking     ai.ThinkingLevel
	Now          func() time.Time // nil: time.Now
	// Stopwatch, when set, starts a measurement and returns what reads
	// it: each answer and tool result then records how long it took
	// (pi's durationMs). nil: durations are not recorded.
	Stopwatch func() func() time.Duration
	// ToolGrace bounds the wait for tools after the run is cancelled;
	// 0 means DefaultToolGrace.
	ToolGrace time.Duration
	// Emit receives every event, synchronously, in order. Tool updates and
	// ends of one batch come from the tools' goroutines, one at a time.
	Emit func(Event)
	// Steering returns user messages queued while the run was working;
	// it is asked after every tool batch and after a text stop.
	Steering func() []ai.Message
	// FollowUp returns messages queued for after a natural stop; it is
	// asked only when there is no steering.
	FollowUp func() []ai.Message
}

// Reason says why a run ended.
type Reason string

// Run end reasons.
const (
	ReasonStop     Reason = "stop"
	ReasonLength   Reason = "length" // the last answer hit the output token limit
	ReasonError    Reason = "error"
	ReasonAborted  Reason = "aborted"
	ReasonMaxSteps Reason = "maxSteps"
)

// Result is the outcome of a run.
type Result struct {
	Reason Reason
	// Messages is the whole transcript: the history the run started from,
	// then the run's own messages from index Start on.
	Messages []ai.Message
	Start    int
	Steps    int      // model requests made
	Usage    ai.Usage // summed over this run's assistant messages
	// Err is the cause of ReasonError (often *ai.ProviderError) or
	// ReasonAborted (the context's error).
	Err error
}

// New returns the messages this run added.
func (r *Result) New() []ai.Message { return r.Messages[r.Start:] }

// Clone returns a deep copy.
func (r Result) Clone() Result {
	r.Messages = ai.CloneMessages(r.Messages)
	return r
}

// Final returns the last assistant message of the run, if any.
func (r *Result) Final() (ai.Message, bool) {
	for i := len(r.Messages) - 1; i >= r.Start; i-- {
		if r.Messages[i].Role == ai.RoleAssistant {
			return r.Messages[i], true
		}
	}
	return ai.Message{}, false
}

// Run runs the loop from history with new prompt messages (which may be
// empty to continue from history). It never panics on model or tool
// failure and always ends with agent_end.
func Run(ctx context.Context, cfg Config, history, prompts []ai.Message) Result {
	r := newRun(ctx, cfg, history)
	r.run(prompts)
	return r.res
}
