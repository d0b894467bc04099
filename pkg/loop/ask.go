package loop

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// ask makes one model request and returns the complete assistant message,
// emitting message_start, message_update per stream event and retry events.
// It never panics: a panicking or broken model becomes an error message.
func (r *run) ask() (msg ai.Message, err error) {
	r.res.Steps++
	req := r.request()
	a := answer{r: r}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("model panicked: %v", p)
			msg = r.errorMessage(err)
			a.open(nil)
		}
	}()
	elapsed := r.startWatch()
	for e := range r.cfg.Model.Stream(r.ctx, req) {
		if be := a.take(e); be != nil {
			return ai.Message{}, be // the request was not sent
		}
	}
	if !a.ended {
		err = errors.New("model stream ended without a result")
		a.open(nil)
		return r.errorMessage(err), err
	}
	return a.result(elapsed)
}

// request is the model request of the current step.
func (r *run) request() *ai.Request {
	if r.cfg.Tools != nil && r.res.Steps > 1 {
		r.specs = r.cfg.Tools.Specs() // the tools may change between turns (tools.Source)
	}
	return &ai.Request{
		SystemPrompt: r.cfg.SystemPrompt,
		Messages:     r.res.Messages,
		Tools:        r.specs,
		MaxTokens:    r.cfg.MaxTokens,
		Thinking:     r.cfg.Thinking,
		OutputSchema: r.cfg.OutputSchema,
	}
}

// answer is the assistant message of one model request as its stream
// arrives: it emits message_start once per attempt and keeps the final
// message and error.
type answer struct {
	r       *run
	started bool // message_start was emitted for the current attempt
	ended   bool // the stream delivered its final message
	final   ai.Message
	err     error
}

// open emits message_start unless the current attempt has one, taking
// the api, provider, model and timestamp of m when given.
func (a *answer) open(m *ai.Message) {
	if a.started {
		return
	}
	a.started = true
	head := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, Timestamp: a.r.now()}
	if m != nil {
		head.API, head.Provider, head.Model = m.API, m.Provider, m.Model
		if m.Timestamp != 0 {
			head.Timestamp = m.Timestamp
		}
	}
	a.r.emit(Event{Type: MessageStart, Message: &head})
}

// take handles one stream event. It returns the budget error of a
// request that was never sent, and nil otherwise.
func (a *answer) take(e ai.Event) *BudgetError {
	switch e.Type {
	case ai.EventStart:
		a.open(e.Message)
	case ai.EventRetryStart:
		// The failed attempt's deltas are void: the next attempt opens
		// a fresh message_start, so consumers that reset on it recover.
		a.r.emitRetry(e)
		a.started = false
	case ai.EventRetryEnd:
		a.r.emitRetry(e)
	case ai.EventDone, ai.EventError:
		if be := (*BudgetError)(nil); !a.started && errors.As(e.Err, &be) {
			return be
		}
		// The transcript owns its copy: the model may reuse or change
		// the message it returned (one message, cheap to copy).
		a.err, a.ended = e.Err, e.Message != nil
		if a.ended {
			a.final = e.Message.Clone()
		}
	default:
		a.open(nil)
		ev := e
		a.r.emit(Event{Type: MessageUpdate, Stream: &ev})
	}
	return nil
}

// result completes the final message of an answer that ended: its
// timestamp, duration and thinking level. A message that stopped on an
// error without one returns its error message as the error.
func (a *answer) result(elapsed func() time.Duration) (ai.Message, error) {
	a.open(&a.final)
	msg, err := a.final, a.err
	if msg.Timestamp == 0 {
		msg.Timestamp = a.r.now()
	}
	setDuration(&msg, elapsed)
	a.r.setThinkingLevel(&msg)
	if msg.StopReason == ai.StopError && err == nil {
		err = errors.New(msg.ErrorMessage)
	}
	return msg, err
}

func (r *run) emitRetry(e ai.Event) {
	info := ai.RetryInfo{}
	if e.Retry != nil {
		info = *e.Retry
	}
	t := RetryStart
	if e.Type == ai.EventRetryEnd {
		t = RetryEnd
	}
	r.emit(Event{Type: t, Retry: &info})
}

func (r *run) errorMessage(err error) ai.Message {
	return ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, StopReason: ai.StopError,
		ErrorMessage: err.Error(), Timestamp: r.now()}
}

// setThinkingLevel records the thinking level the request asked for on
// the model's answer, as pi 1.6's thinkingLevel ("off" for none; kept
// when already set).
func (r *run) setThinkingLevel(m *ai.Message) {
	if m.Extra["thinkingLevel"] != nil {
		return
	}
	level := r.cfg.Thinking
	if level == "" {
		level = ai.ThinkingOff
	}
	pijson.AddExtra(&m.Extra, "thinkingLevel", pijson.AppendString(nil, string(level)))
}

// startWatch starts a measurement; nil without a Stopwatch.
func (r *run) startWatch() func() time.Duration {
	if r.cfg.Stopwatch == nil {
		return nil
	}
	return r.cfg.Stopwatch()
}

// setDuration records how long a model answer or a tool call took, in
// milliseconds, as pi 1.6's durationMs (kept when already set).
func setDuration(m *ai.Message, elapsed func() time.Duration) {
	if elapsed == nil || m.Extra["durationMs"] != nil {
		return
	}
	ms := max((elapsed()+time.Millisecond/2)/time.Millisecond, 0)
	pijson.AddExtra(&m.Extra, "durationMs", strconv.AppendInt(nil, int64(ms), 10))
}
