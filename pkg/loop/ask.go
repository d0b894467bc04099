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
	if r.cfg.Tools != nil && r.res.Steps > 1 {
		r.specs = r.cfg.Tools.Specs() // the tools may change between turns (tools.Source)
	}
	req := &ai.Request{
		SystemPrompt: r.cfg.SystemPrompt,
		Messages:     r.res.Messages,
		Tools:        r.specs,
		MaxTokens:    r.cfg.MaxTokens,
		Thinking:     r.cfg.Thinking,
		OutputSchema: r.cfg.OutputSchema,
	}
	started := false
	start := func(m *ai.Message) {
		if started {
			return
		}
		started = true
		head := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, Timestamp: r.now()}
		if m != nil {
			head.API, head.Provider, head.Model = m.API, m.Provider, m.Model
			if m.Timestamp != 0 {
				head.Timestamp = m.Timestamp
			}
		}
		r.emit(Event{Type: MessageStart, Message: &head})
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("model panicked: %v", p)
			msg = r.errorMessage(err)
			start(nil)
		}
	}()
	var final ai.Message // the model's final message, copied
	ended := false
	elapsed := r.startWatch()
	for e := range r.cfg.Model.Stream(r.ctx, req) {
		switch e.Type {
		case ai.EventStart:
			start(e.Message)
		case ai.EventRetryStart:
			// The failed attempt's deltas are void: the next attempt opens
			// a fresh message_start, so consumers that reset on it recover.
			r.emitRetry(e)
			started = false
		case ai.EventRetryEnd:
			r.emitRetry(e)
		case ai.EventDone, ai.EventError:
			if be := (*BudgetError)(nil); !started && errors.As(e.Err, &be) {
				return ai.Message{}, be // the request was not sent
			}
			// The transcript owns its copy: the model may reuse or change
			// the message it returned (one message, cheap to copy).
			err, ended = e.Err, e.Message != nil
			if ended {
				final = e.Message.Clone()
			}
		default:
			start(nil)
			ev := e
			r.emit(Event{Type: MessageUpdate, Stream: &ev})
		}
	}
	if !ended {
		err = errors.New("model stream ended without a result")
		start(nil)
		return r.errorMessage(err), err
	}
	start(&final)
	msg = final
	if msg.Timestamp == 0 {
		msg.Timestamp = r.now()
	}
	setDuration(&msg, elapsed)
	r.setThinkingLevel(&msg)
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
