package telemetry

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
)

// The OTLP request is written by hand, not by generated code: the field
// numbers are opentelemetry-proto's (collector/trace/v1/trace_service.proto,
// trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto),
// the JSON names its JSON mapping (lowerCamelCase, ids in hex, enums as
// numbers, 64-bit integers as strings).

// request is one ExportTraceServiceRequest's content: a resource, a
// scope and the spans.
type request struct {
	resource []attribute
	scope    string
	version  string
	spans    []*span
	scrub    func(string) string // applied to every string exported
}

// Span flags (trace.proto's SpanFlags).
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

func spanFlags(s *span) uint32 {
	f := uint32(s.sc.flags) | flagHasIsRemote
	if s.parent.remote {
		f |= flagIsRemote
	}
	return f
}

// ---- protobuf ----

type pb struct{ b []byte }

func (p *pb) tag(field, wire int) { p.b = binary.AppendUvarint(p.b, uint64(field<<3|wire)) }
func (p *pb) varint(field int, v uint64) {
	p.tag(field, 0)
	p.b = binary.AppendUvarint(p.b, v)
}
func (p *pb) fixed64(field int, v uint64) {
	p.tag(field, 1)
	p.b = binary.LittleEndian.AppendUint64(p.b, v)
}
func (p *pb) fixed32(field int, v uint32) {
	p.tag(field, 5)
	p.b = binary.LittleEndian.AppendUint32(p.b, v)
}
func (p *pb) bytes(field int, v []byte) {
	p.tag(field, 2)
	p.b = binary.AppendUvarint(p.b, uint64(len(v)))
	p.b = append(p.b, v...)
}
func (p *pb) str(field int, v string) {
	p.tag(field, 2)
	p.b = binary.AppendUvarint(p.b, uint64(len(v)))
	p.b = append(p.b, v...)
}

// msg writes a length-delimited sub-message built by fn.
func (p *pb) msg(field int, fn func(*pb)) {
	var sub pb
	fn(&sub)
	p.bytes(field, sub.b)
}

func (r *request) protobuf() []byte {
	var p pb
	p.msg(1, func(rs *pb) { // ExportTraceServiceRequest.resource_spans
		rs.msg(1, func(res *pb) { // ResourceSpans.resource
			for _, kv := range r.resource {
				res.msg(1, func(a *pb) { r.pbKV(a, kv) })
			}
		})
		rs.msg(2, func(ss *pb) { // ResourceSpans.scope_spans
			ss.msg(1, func(sc *pb) { // ScopeSpans.scope
				sc.str(1, r.scope)
				if r.version != "" {
					sc.str(2, r.version)
				}
			})
			for _, s := range r.spans {
				ss.msg(2, func(sp *pb) { r.pbSpan(sp, s) })
			}
		})
	})
	return p.b
}

func (r *request) pbSpan(p *pb, s *span) {
	p.bytes(1, s.sc.traceID[:])
	p.bytes(2, s.sc.spanID[:])
	if s.sc.state != "" {
		p.str(3, s.sc.state)
	}
	if s.parent.valid() {
		p.bytes(4, s.parent.spanID[:])
	}
	p.str(5, r.scrub(s.name))
	p.varint(6, uint64(s.kind))
	p.fixed64(7, uint64(s.start.UnixNano()))
	p.fixed64(8, uint64(s.end.UnixNano()))
	for _, kv := range s.attrs {
		p.msg(9, func(a *pb) { r.pbKV(a, kv) })
	}
	if s.dropped > 0 {
		p.varint(10, uint64(s.dropped))
	}
	for _, e := range s.events {
		p.msg(11, func(ev *pb) {
			ev.fixed64(1, uint64(e.at.UnixNano()))
			ev.str(2, e.name)
			for _, kv := range e.attrs {
				ev.msg(3, func(a *pb) { r.pbKV(a, kv) })
			}
			if e.dropped > 0 {
				ev.varint(4, uint64(e.dropped))
			}
		})
	}
	if s.lostEvents > 0 {
		p.varint(12, uint64(s.lostEvents))
	}
	if s.status != 0 {
		p.msg(15, func(m *pb) {
			if s.statusMsg != "" {
				m.str(2, r.scrub(s.statusMsg))
			}
			m.varint(3, uint64(s.status))
		})
	}
	p.fixed32(16, spanFlags(s))
}

func (r *request) pbKV(p *pb, kv attribute) {
	p.str(1, kv.Key)
	p.msg(2, func(v *pb) { r.pbValue(v, kv.Value) })
}

// pbValue writes an AnyValue: string 1, bool 2, int 3, double 4, array 5.
func (r *request) pbValue(p *pb, v attrValue) {
	switch v.kind {
	case kindBool:
		p.varint(2, uint64(v.n))
	case kindInt:
		p.varint(3, uint64(v.n))
	case kindFloat:
		p.fixed64(4, math.Float64bits(v.f))
	case kindStrings:
		p.msg(5, func(a *pb) {
			for _, s := range v.ss {
				a.msg(1, func(e *pb) { e.str(1, r.scrub(s)) })
			}
		})
	default:
		p.str(1, r.scrub(v.s))
	}
}

// ---- JSON ----

type jsonValue map[string]any

type jsonKV struct {
	Key   string    `json:"key"`
	Value jsonValue `json:"value"`
}

type jsonEvent struct {
	TimeUnixNano      string   `json:"timeUnixNano"`
	Name              string   `json:"name"`
	Attributes        []jsonKV `json:"attributes,omitempty"`
	DroppedAttributes int      `json:"droppedAttributesCount,omitempty"`
}

type jsonStatus struct {
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

type jsonSpan struct {
	TraceID           string      `json:"traceId"`
	SpanID            string      `json:"spanId"`
	TraceState        string      `json:"traceState,omitempty"`
	ParentSpanID      string      `json:"parentSpanId,omitempty"`
	Flags             uint32      `json:"flags"`
	Name              string      `json:"name"`
	Kind              int         `json:"kind"`
	StartTimeUnixNano string      `json:"startTimeUnixNano"`
	EndTimeUnixNano   string      `json:"endTimeUnixNano"`
	Attributes        []jsonKV    `json:"attributes,omitempty"`
	DroppedAttributes int         `json:"droppedAttributesCount,omitempty"`
	Events            []jsonEvent `json:"events,omitempty"`
	DroppedEvents     int         `json:"droppedEventsCount,omitempty"`
	Status            *jsonStatus `json:"status,omitempty"`
}

func (r *request) jsonSpan(s *span) jsonSpan {
	js := jsonSpan{TraceID: hex.EncodeToString(s.sc.traceID[:]), SpanID: hex.EncodeToString(s.sc.spanID[:]), TraceState: s.sc.state,
		Flags: spanFlags(s), Name: r.scrub(s.name), Kind: s.kind,
		StartTimeUnixNano: strconv.FormatInt(s.start.UnixNano(), 10), EndTimeUnixNano: strconv.FormatInt(s.end.UnixNano(), 10),
		Attributes: r.jsonKVs(s.attrs), DroppedAttributes: s.dropped, DroppedEvents: s.lostEvents}
	if s.parent.valid() {
		js.ParentSpanID = hex.EncodeToString(s.parent.spanID[:])
	}
	for _, e := range s.events {
		js.Events = append(js.Events, jsonEvent{strconv.FormatInt(e.at.UnixNano(), 10), e.name, r.jsonKVs(e.attrs), e.dropped})
	}
	if s.status != 0 {
		js.Status = &jsonStatus{r.scrub(s.statusMsg), s.status}
	}
	return js
}

func (r *request) json() []byte {
	spans := make([]jsonSpan, 0, len(r.spans))
	for _, s := range r.spans {
		spans = append(spans, r.jsonSpan(s))
	}
	scope := map[string]string{"name": r.scope}
	if r.version != "" {
		scope["version"] = r.version
	}
	body := map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": r.jsonKVs(r.resource)},
		"scopeSpans": []any{map[string]any{"scope": scope, "spans": spans}},
	}}}
	b, _ := json.Marshal(body) // maps, strings and numbers only: cannot fail
	return b
}

func (r *request) jsonKVs(kvs []attribute) []jsonKV {
	out := make([]jsonKV, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, jsonKV{kv.Key, r.jsonValue(kv.Value)})
	}
	return out
}

func (r *request) jsonValue(v attrValue) jsonValue {
	switch v.kind {
	case kindBool:
		return jsonValue{"boolValue": v.n == 1}
	case kindInt:
		return jsonValue{"intValue": strconv.FormatInt(v.n, 10)}
	case kindFloat:
		return jsonValue{"doubleValue": v.f}
	case kindStrings:
		var vs []jsonValue
		for _, s := range v.ss {
			vs = append(vs, jsonValue{"stringValue": r.scrub(s)})
		}
		return jsonValue{"arrayValue": map[string]any{"values": vs}}
	}
	return jsonValue{"stringValue": r.scrub(v.s)}
}
