package agent

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"gopi/pkg/loop"
)

// dispatcher delivers events to subscribers one at a time, in FIFO order.
// An event emitted while another is being delivered (from a subscriber,
// or from a tool's goroutine) waits until the current one has reached
// every subscriber. The state is reduced before subscribers see an event.
type dispatcher struct {
	dmu         sync.Mutex
	state       State
	subs        []*subscriber
	nextSub     int
	queue       []Event
	dispatching bool
	// text holds state.StreamingText, grown in place (see streamText).
	text strings.Builder
	// queueSent is the version of the last queue_update let through.
	queueSent uint64
}

type subscriber struct {
	id       int
	fn       func(Event)
	want     Filter // nil: every event
	loopOnly bool   // gets the loop event alone (no Result)
}

// A Filter chooses the event types a subscriber gets.
type Filter func(loop.EventType) bool

// Only is a Filter passing the given types.
func Only(types ...loop.EventType) Filter {
	types = slices.Clone(types)
	return func(t loop.EventType) bool { return slices.Contains(types, t) }
}

// Except is a Filter passing every type but the given ones.
func Except(types ...loop.EventType) Filter {
	types = slices.Clone(types)
	return func(t loop.EventType) bool { return !slices.Contains(types, t) }
}

// Subscribe registers fn for every later event (with filters, for the
// event types every filter passes; nil filters are ignored) and returns
// the function that removes it (and only it). fn runs synchronously on the
// goroutine that dispatches; it gets its own deep copy of each event. A
// panic in fn or in a filter is recorded in State.Diagnostics (a filter
// that panics counts as refusing the event) and the other subscribers
// still run. A filter spares the copies of events a subscriber ignores: a
// run_end carries the whole transcript.
func (a *Agent) Subscribe(fn func(Event), filter ...Filter) (unsubscribe func()) {
	return a.subscribe(&subscriber{fn: fn}, filter)
}

// SubscribeEvents is Subscribe for a subscriber that needs the loop event
// alone: a run_end reaches it as an event of type RunEnd without its
// Result, so no transcript is copied for it.
func (a *Agent) SubscribeEvents(fn func(runID int, e loop.Event), filter ...Filter) (unsubscribe func()) {
	return a.subscribe(&subscriber{fn: func(e Event) { fn(e.RunID, e.Event) }, loopOnly: true}, filter)
}

func (a *Agent) subscribe(s *subscriber, filter []Filter) (unsubscribe func()) {
	if fs := slices.DeleteFunc(slices.Clone(filter), func(f Filter) bool { return f == nil }); len(fs) > 0 {
		s.want = func(t loop.EventType) bool {
			return !slices.ContainsFunc(fs, func(f Filter) bool { return !f(t) })
		}
	}
	a.dmu.Lock()
	defer a.dmu.Unlock()
	a.nextSub++
	s.id = a.nextSub
	a.subs = append(slices.Clip(a.subs), s)
	return func() {
		a.dmu.Lock()
		defer a.dmu.Unlock()
		a.subs = slices.DeleteFunc(slices.Clone(a.subs), func(x *subscriber) bool { return x == s })
	}
}

// State returns a deep copy of the current state.
func (a *Agent) State() State {
	a.dmu.Lock()
	defer a.dmu.Unlock()
	return a.state.Clone()
}

// emit reduces e into the state and delivers a copy to every subscriber
// that wants it. An event emitted while another is being delivered is
// copied into the FIFO queue (its sender may go on changing what it
// points to); an event delivered at once is only read before emit
// returns, so each subscriber's copy is made from it directly and an
// event no subscriber wants is never copied. The sender's event never
// enters the queue: a streamed answer's deltas, emitted one at a time,
// allocate no queue.
func (a *Agent) emit(e Event) { a.emitIf(e, nil) }

// emitIf is emit of an event that keep, asked under the dispatcher's
// lock, may still drop (nil keeps it).
func (a *Agent) emitIf(e Event, keep func() bool) {
	a.dmu.Lock()
	if keep != nil && !keep() {
		a.dmu.Unlock()
		return
	}
	if a.dispatching {
		a.queue = append(a.queue, e.Clone())
		a.dmu.Unlock()
		return
	}
	a.dispatching = true
	ev, owned := e, false // owned: ev is a queued copy, not the sender's
	for {
		a.state = reduce(a.state, ev, &a.text)
		subs := a.subs // never changed in place
		a.dmu.Unlock()
		a.deliverAll(a.wanting(subs, ev.Type), ev, owned)
		a.dmu.Lock()
		if len(a.queue) == 0 {
			break
		}
		ev, owned = a.queue[0], true
		a.queue[0] = Event{}
		a.queue = a.queue[1:]
	}
	a.queue = nil
	a.dispatching = false
	a.dmu.Unlock()
}

// deliverAll hands ev to subs, each its own copy; the last may keep a
// queued copy (owned) as it is.
func (a *Agent) deliverAll(subs []*subscriber, ev Event, owned bool) {
	for i, s := range subs {
		switch {
		case s.loopOnly:
			a.deliver(s, Event{RunID: ev.RunID, Event: ev.Event.Clone()})
		case owned && i == len(subs)-1:
			a.deliver(s, ev)
		default:
			a.deliver(s, ev.Clone())
		}
	}
}

// wanting returns the subscribers that want events of type t (subs itself
// when all do). Filters run here, outside the dispatcher's lock.
func (a *Agent) wanting(subs []*subscriber, t loop.EventType) []*subscriber {
	var out []*subscriber
	for i, s := range subs {
		if a.wants(s, t) {
			if out != nil {
				out = append(out, s)
			}
		} else if out == nil {
			out = append(make([]*subscriber, 0, len(subs)), subs[:i]...)
		}
	}
	if out == nil {
		return subs
	}
	return out
}

func (a *Agent) wants(s *subscriber, t loop.EventType) (ok bool) {
	if s.want == nil {
		return true
	}
	defer func() {
		if p := recover(); p != nil {
			ok = false
			a.diagnose(fmt.Sprintf("subscriber %d's filter panicked on %s: %v", s.id, t, p))
		}
	}()
	return s.want(t)
}

func (a *Agent) deliver(s *subscriber, e Event) {
	defer func() {
		if p := recover(); p != nil {
			a.diagnose(fmt.Sprintf("subscriber %d panicked on %s: %v", s.id, e.Type, p))
		}
	}()
	s.fn(e)
}

func (a *Agent) diagnose(msg string) {
	a.dmu.Lock()
	defer a.dmu.Unlock()
	a.state.Diagnostics = append(slices.Clip(a.state.Diagnostics), msg)
}

// MessageCount is len(State().Messages) without the copy: the transcript
// as events have reported it so far.
func (a *Agent) MessageCount() int {
	a.dmu.Lock()
	defer a.dmu.Unlock()
	return len(a.state.Messages)
}
