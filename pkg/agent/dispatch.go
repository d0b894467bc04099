package agent

import (
	"fmt"
	"slices"
	"sync"
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
	id int
	fn func(Event)
}

// Subscribe registers fn for every later event and returns the function
// that removes it (and only it). fn runs synchronously on the goroutine
// that dispatches; it gets its own deep copy of each event. A panic in fn
// is recorded in State.Diagnostics and the other subscribers still run.
func (a *Agent) Subscribe(fn func(Event)) (unsubscribe func()) {
	a.dmu.Lock()
	defer a.dmu.Unlock()
	a.nextSub++
	s := &subscriber{id: a.nextSub, fn: fn}
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

func (a *Agent) emit(e Event) {
	a.dmu.Lock()
	a.queue = append(a.queue, e.Clone())
	if a.dispatching {
		a.dmu.Unlock()
		return
	}
	a.dispatching = true
	for len(a.queue) > 0 {
		ev := a.queue[0]
		a.queue[0] = Event{}
		a.queue = a.queue[1:]
		a.state = Reduce(a.state, ev)
		subs := a.subs
		a.dmu.Unlock()
		for i, s := range subs {
			if i == len(subs)-1 {
				a.deliver(s, ev) // the last subscriber may keep the queued copy
			} else {
				a.deliver(s, ev.Clone())
			}
		}
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
