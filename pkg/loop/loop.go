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
	"encoding/json"
	"fmt"
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
	// Limits bound what the run may spend (tokens, dollars).
	Limits Limits
	// OutputSchema is passed to every request (ai.Request.OutputSchema).
	OutputSchema json.RawMessage
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
	// Notices, when set, is called once as the run starts with the run's
	// notify: what a layer above the loop reports from inside the model's
	// stream (compaction_start, compaction_end, context_trimmed) goes
	// through it to Emit, in order with the loop's own events (a
	// compaction between turns precedes the next turn's turn_start). Call
	// notify only from inside Model.Stream or BeforeStart, on the run's
	// goroutine.
	Notices func(notify func(Event))
	// BeforeStart, when set, is called on the run's goroutine before
	// agent_start with the messages the first request will carry (the
	// history, then the prompts): what a layer above reports through
	// notify from inside it (a compaction before a prompt, as pi checks
	// one) comes before agent_start. A cancelled ctx is for it to notice;
	// the run then ends aborted before its first request.
	BeforeStart func(ctx context.Context, transcript []ai.Message)
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
	// The run spent its token or dollar budget (Limits) while the model
	// still wanted to go on.
	ReasonBudgetTokens Reason = "budgetTokens"
	ReasonBudgetUSD    Reason = "budgetUsd"
)

// Limits bound what one run may spend; a zero field bounds nothing. They
// are checked where the run would ask the model again: after an answer
// with tool calls, before the calls run (each then gets a result saying it
// was skipped), and after an answer without, before queued input is taken
// (the answer stands; the run ends with stop and the queues are left).
type Limits struct {
	// Tokens bounds input (cache reads and writes included) plus output
	// tokens, as the provider reported them.
	Tokens int64
	// USD bounds the cost in US dollars, from the model's prices.
	USD float64
	// Extra reports what the run spent outside its own model requests
	// (summaries of a compaction); nil is nothing.
	Extra func() ai.Usage
}

// over returns the limit spent passes, with what was spent, or "".
func (l Limits) over(spent ai.Usage) (Reason, error) {
	if err := l.Check(spent); err != nil {
		return err.Reason, err.Err
	}
	return "", nil
}

// Check reports the limit the run passed, having spent spent on its own
// answers (Extra is added), or nil. A model that finds the budget spent
// before it sends a request (a compaction spent it) ends the stream with
// this error, and the run ends with its Reason, the request not sent.
func (l Limits) Check(spent ai.Usage) *BudgetError {
	if l.Extra != nil {
		spent = spent.Add(l.Extra())
	}
	tokens := spent.Input + spent.Output + spent.CacheRead + spent.CacheWrite
	switch {
	case l.Tokens > 0 && tokens >= l.Tokens:
		return &BudgetError{ReasonBudgetTokens, fmt.Errorf("the run spent %d tokens, its budget is %d (--max-budget-tokens)", tokens, l.Tokens)}
	case l.USD > 0 && spent.Cost.Total >= l.USD:
		return &BudgetError{ReasonBudgetUSD, fmt.Errorf("the run spent $%.4f, its budget is $%.4f (--max-budget-usd)", spent.Cost.Total, l.USD)}
	}
	return nil
}

// BudgetError is a spent budget (Limits.Check).
type BudgetError struct {
	Reason Reason // ReasonBudgetTokens or ReasonBudgetUSD
	Err    error  // what was spent, and the budget
}

func (e *BudgetError) Error() string { return e.Err.Error() }
func (e *BudgetError) Unwrap() error { return e.Err }

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
