package telemetry

// Spans are recorded here, not by the OpenTelemetry SDK: linking the SDK
// (or the API's trace and propagation packages, which bring semconv and
// the global error handler) runs their init functions at every start of
// gopi, with telemetry on or off. What gopi needs of them is small and
// specified: W3C trace context, the standard samplers, random ids, the
// attribute and event limits, status. A span is owned by its run, whose
// lock guards it; once ended it is read only by the export.

import (
	"encoding/binary"
	"math/rand/v2"
	"time"
)

// OTLP's SpanKind.
const (
	spanInternal = 1
	spanClient   = 3
)

// statusError is OTLP's STATUS_CODE_ERROR, the one status gopi sets.
const statusError = 2

// The limits of a span, as gopi configured the SDK: a value is cut at
// 64 KiB (captured content, after its secrets are scrubbed), later
// attributes and older events are dropped and counted.
const (
	maxValue           = 64 << 10
	maxAttributes      = 128
	maxEvents          = 256
	maxEventAttrs      = 32
	flagSampled   byte = 0x01
)

// spanContext is a span's identity in a trace, W3C trace context's.
type spanContext struct {
	traceID [16]byte
	spanID  [8]byte
	flags   byte   // trace-flags: sampled (and random)
	state   string // tracestate, as given
	remote  bool   // from TRACEPARENT, not a span of this process
}

func (sc spanContext) valid() bool {
	return sc.traceID != [16]byte{} && sc.spanID != [8]byte{}
}

func (sc spanContext) sampled() bool { return sc.flags&flagSampled != 0 }

type spanEvent struct {
	name    string
	at      time.Time
	attrs   []attribute
	dropped int
}

// span is one recorded span; a span of a trace not sampled records
// nothing and is not sent.
type span struct {
	t          *Telemetry // nil: not recording
	name       string
	kind       int
	sc, parent spanContext
	start, end time.Time
	attrs      []attribute
	dropped    int // attributes over the limit
	events     []spanEvent
	lostEvents int // events over the limit, the oldest first
	status     int
	statusMsg  string
	ended      bool
}

// startSpan starts a span under parent (none: a trace of its own), with
// the sampler's decision for its trace.
func (t *Telemetry) startSpan(parent spanContext, name string, kind int, at time.Time, attrs ...attribute) *span {
	sc := spanContext{traceID: parent.traceID, spanID: newSpanID(), state: parent.state, flags: parent.flags &^ flagSampled}
	if !parent.valid() {
		sc.traceID, sc.state, sc.flags = newTraceID(), "", 0
	}
	s := &span{name: name, kind: kind, sc: sc, parent: parent, start: at}
	if t.sample(parent, sc.traceID) {
		s.sc.flags |= flagSampled
		s.t = t
	}
	s.SetAttributes(attrs...)
	return s
}

// sample is OTEL_TRACES_SAMPLER's decision for a span of trace id under
// parent; for gopi's spans, whose children all follow their root, it is
// the same for every span of a trace.
func (t *Telemetry) sample(parent spanContext, id [16]byte) bool {
	switch t.cfg.Sampler {
	case "always_on":
		return true
	case "always_off":
		return false
	case "traceidratio":
		return ratioSampled(id, t.cfg.SamplerArg)
	}
	if parent.valid() {
		return parent.sampled()
	}
	switch t.cfg.Sampler {
	case "parentbased_always_off":
		return false
	case "parentbased_traceidratio":
		return ratioSampled(id, t.cfg.SamplerArg)
	}
	return true
}

// ratioSampled is TraceIDRatioBased's decision: the trace id's last 8
// bytes, less their lowest bit, under the ratio's share of 2^63.
func ratioSampled(id [16]byte, ratio float64) bool {
	switch {
	case ratio >= 1:
		return true
	case ratio <= 0:
		return false
	}
	return binary.BigEndian.Uint64(id[8:])>>1 < uint64(ratio*(1<<63))
}

func newTraceID() (id [16]byte) {
	for id == [16]byte{} {
		binary.BigEndian.PutUint64(id[:8], rand.Uint64())
		binary.BigEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() (id [8]byte) {
	for id == [8]byte{} {
		binary.BigEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}

// SetAttributes sets attributes: a key set before takes the new value, a
// new key past the limit is dropped and counted.
func (s *span) SetAttributes(attrs ...attribute) {
	if s.t == nil || s.ended {
		return
	}
	s.attrs, s.dropped = setAttributes(s.attrs, s.dropped, maxAttributes, attrs)
}

func setAttributes(to []attribute, dropped, limit int, attrs []attribute) ([]attribute, int) {
next:
	for _, a := range attrs {
		a.Value = a.Value.truncated(maxValue)
		for i := range to {
			if to[i].Key == a.Key {
				to[i] = a
				continue next
			}
		}
		if len(to) >= limit {
			dropped++
			continue
		}
		to = append(to, a)
	}
	return to, dropped
}

// AddEvent adds an event at a time; past the limit the oldest is dropped.
func (s *span) AddEvent(name string, at time.Time, attrs ...attribute) {
	if s.t == nil || s.ended {
		return
	}
	e := spanEvent{name: name, at: at}
	e.attrs, e.dropped = setAttributes(nil, 0, maxEventAttrs, attrs)
	if len(s.events) >= maxEvents {
		s.events = s.events[1:]
		s.lostEvents++
	}
	s.events = append(s.events, e)
}

// SetError sets the span's status to an error with its description.
func (s *span) SetError(description string) {
	if s.t == nil || s.ended {
		return
	}
	s.status, s.statusMsg = statusError, description
}

// End ends the span at a time and keeps it for the next flush.
func (s *span) End(at time.Time) {
	if s.t == nil || s.ended {
		return
	}
	s.ended, s.end = true, at
	s.t.col.add(s)
}
