package agent

import (
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// BenchmarkDispatchOneSubscriber measures reducing and delivering one
// streaming event (a text delta, the most frequent kind) to one subscriber.
func BenchmarkDispatchOneSubscriber(b *testing.B) {
	a := New(Options{})
	n := 0
	a.Subscribe(func(Event) { n++ })
	a.emit(Event{RunID: 1, Event: loop.Event{Type: loop.AgentStart}})
	ev := Event{RunID: 1, Event: loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventThinkingDelta, Delta: "token"}}}
	b.ReportAllocs()
	for b.Loop() {
		a.emit(ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkDispatchMessageEnd measures a completed message reaching the
// transcript and one subscriber (a deep copy for each).
func BenchmarkDispatchMessageEnd(b *testing.B) {
	a := New(Options{})
	a.Subscribe(func(Event) {})
	a.emit(Event{RunID: 1, Event: loop.Event{Type: loop.AgentStart}})
	msg := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("a short answer")}}
	ev := Event{RunID: 1, Event: loop.Event{Type: loop.MessageEnd, Message: &msg}}
	b.ReportAllocs()
	for b.Loop() {
		a.emit(ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
