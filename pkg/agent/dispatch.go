package agent

import (
	"fmt"
	"slices"
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
}

type subscriber struct {
	id   int
	fn   func(Event)
	want Filter // nil: every event
}

func (s *subscriber) wants(t loop.EventType) bool { return s.want == nil || s.want(t) }

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

// Subscribe registers fn for every later event (with a filter, for the
// event types it passes) and returns the function that removes it (and
// only it). fn runs synchronously on the goroutine that dispatches; it
// gets its own deep copy of each event. A panic in fn is recorded in
// State.Diagnostics and the other subscribers still run. A filter spares
// the copies of events a subscriber ignores: a run_end carries the whole
// transcript.
func (a *Agent) Subscribe(fn func(Event), filter ...Filter) (unsubscribe func()) {
	a.dmu.Lock()
	defer a.dmu.Unlock()
	a.nextSub++
	s := &subscriber{id: a.nextSub, fn: fn}
	if len(filter) > 0 {
		fs := slices.Clone(filter)
		s.want = func(t loop.EventType) bool {
			return !slices.ContainsFunc(fs, func(f Filter) bool { return !f(t) })
		}
	}
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
// event no subscriber wants is never copied.
func (a *Agent) emit(e Event) {
	a.dmu.Lock()
	if a.dispatching {
		a.queue = append(a.queue, e.Clone())
		a.dmu.Unlock()
		return
	}
	a.dispatching = true
	a.queue = append(a.queue, e)
	owned := false // the event at the head of the queue is the sender's
	for len(a.queue) > 0 {
		ev := a.queue[0]
		a.queue[0] = Event{}
		a.queue = a.queue[1:]
		a.state = reduce(a.state, ev)
		subs := a.subs // never changed in place
		if slices.ContainsFunc(subs, func(s *subscriber) bool { return !s.wants(ev.Type) }) {
			subs = slices.DeleteFunc(slices.Clone(subs), func(s *subscriber) bool { return !s.wants(ev.Type) })
		}
		a.dmu.Unlock()
		for i, s := range subs {
			if owned && i == len(subs)-1 {
				a.deliver(s, ev) // the last subscriber may keep the queued copy
			} else {
				a.deliver(s, ev.Clone())
			}
		}
		owned = true
		a.dmu.Lock()
	}
	a.queue = nil
	a.dispatching = false
	a.dmu.Unlock()
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
