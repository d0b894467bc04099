package telemetry

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTLP request is written by hand, not by generated code: the field
// numbers are opentelemetry-proto's (collector/trace/v1/trace_service.proto,
// trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto),
// the JSON names its JSON mapping (lowerCamelCase, ids in hex, enums as
// numbers, 64-bit integers as strings).

// request is one ExportTraceServiceRequest's content: a resource, a
// scope and the spans.
type request struct {
	resource []attribute.KeyValue
	scope    string
	version  string
	spans    []sdktrace.ReadOnlySpan
	scrub    func(string) string // applied to every string exported
}

// Span flags (trace.proto's SpanFlags).
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

func spanFlags(s sdktrace.ReadOnlySpan) uint32 {
	f := uint32(s.SpanContext().TraceFlags()) | flagHasIsRemote
	if s.Parent().IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// status maps the SDK's code to OTLP's StatusCode (UNSET 0, OK 1, ERROR 2).
func status(c codes.Code) int {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
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

func (r *request) pbSpan(p *pb, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p.bytes(1, tid[:])
	p.bytes(2, sid[:])
	if ts := sc.TraceState().String(); ts != "" {
		p.str(3, ts)
	}
	if s.Parent().IsValid() {
		pid := s.Parent().SpanID()
		p.bytes(4, pid[:])
	}
	p.str(5, r.scrub(s.Name()))
	p.varint(6, uint64(s.SpanKind()))
	p.fixed64(7, uint64(s.StartTime().UnixNano()))
	p.fixed64(8, uint64(s.EndTime().UnixNano()))
	for _, kv := range s.Attributes() {
		p.msg(9, func(a *pb) { r.pbKV(a, kv) })
	}
	if n := s.DroppedAttributes(); n > 0 {
		p.varint(10, uint64(n))
	}
	for _, e := range s.Events() {
		p.msg(11, func(ev *pb) {
			ev.fixed64(1, uint64(e.Time.UnixNano()))
			ev.str(2, e.Name)
			for _, kv := range e.Attributes {
				ev.msg(3, func(a *pb) { r.pbKV(a, kv) })
			}
		})
	}
	if n := s.DroppedEvents(); n > 0 {
		p.varint(12, uint64(n))
	}
	if st := s.Status(); st.Code != codes.Unset {
		p.msg(15, func(m *pb) {
			if st.Description != "" {
				m.str(2, r.scrub(st.Description))
			}
			m.varint(3, uint64(status(st.Code)))
		})
	}
	p.fixed32(16, spanFlags(s))
}

func (r *request) pbKV(p *pb, kv attribute.KeyValue) {
	p.str(1, string(kv.Key))
	p.msg(2, func(v *pb) { r.pbValue(v, kv.Value) })
}

// pbValue writes an AnyValue: string 1, bool 2, int 3, double 4, array 5.
func (r *request) pbValue(p *pb, v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		p.varint(2, b2u(v.AsBool()))
	case attribute.INT64:
		p.varint(3, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		p.fixed64(4, math.Float64bits(v.AsFloat64()))
	case attribute.STRINGSLICE:
		p.msg(5, func(a *pb) {
			for _, s := range v.AsStringSlice() {
				a.msg(1, func(e *pb) { e.str(1, r.scrub(s)) })
			}
		})
	case attribute.INT64SLICE:
		p.msg(5, func(a *pb) {
			for _, n := range v.AsInt64Slice() {
				a.msg(1, func(e *pb) { e.varint(3, uint64(n)) })
			}
		})
	case attribute.BOOLSLICE:
		p.msg(5, func(a *pb) {
			for _, b := range v.AsBoolSlice() {
				a.msg(1, func(e *pb) { e.varint(2, b2u(b)) })
			}
		})
	case attribute.FLOAT64SLICE:
		p.msg(5, func(a *pb) {
			for _, f := range v.AsFloat64Slice() {
				a.msg(1, func(e *pb) { e.fixed64(4, math.Float64bits(f)) })
			}
		})
	default:
		p.str(1, r.scrub(v.Emit()))
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// ---- JSON ----

type jsonValue map[string]any

type jsonKV struct {
	Key   string    `json:"key"`
	Value jsonValue `json:"value"`
}

type jsonEvent struct {
	TimeUnixNano string   `json:"timeUnixNano"`
	Name         string   `json:"name"`
	Attributes   []jsonKV `json:"attributes,omitempty"`
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

func (r *request) json() []byte {
	spans := make([]jsonSpan, 0, len(r.spans))
	for _, s := range r.spans {
		sc := s.SpanContext()
		tid, sid := sc.TraceID(), sc.SpanID()
		js := jsonSpan{TraceID: hex.EncodeToString(tid[:]), SpanID: hex.EncodeToString(sid[:]), TraceState: sc.TraceState().String(),
			Flags: spanFlags(s), Name: r.scrub(s.Name()), Kind: int(s.SpanKind()),
			StartTimeUnixNano: strconv.FormatInt(s.StartTime().UnixNano(), 10), EndTimeUnixNano: strconv.FormatInt(s.EndTime().UnixNano(), 10),
			Attributes: r.jsonKVs(s.Attributes()), DroppedAttributes: s.DroppedAttributes(), DroppedEvents: s.DroppedEvents()}
		if s.Parent().IsValid() {
			pid := s.Parent().SpanID()
			js.ParentSpanID = hex.EncodeToString(pid[:])
		}
		for _, e := range s.Events() {
			js.Events = append(js.Events, jsonEvent{strconv.FormatInt(e.Time.UnixNano(), 10), e.Name, r.jsonKVs(e.Attributes)})
		}
		if st := s.Status(); st.Code != codes.Unset {
			js.Status = &jsonStatus{r.scrub(st.Description), status(st.Code)}
		}
		spans = append(spans, js)
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

func (r *request) jsonKVs(kvs []attribute.KeyValue) []jsonKV {
	out := make([]jsonKV, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, jsonKV{string(kv.Key), r.jsonValue(kv.Value)})
	}
	return out
}

func (r *request) jsonValue(v attribute.Value) jsonValue {
	switch v.Type() {
	case attribute.BOOL:
		return jsonValue{"boolValue": v.AsBool()}
	case attribute.INT64:
		return jsonValue{"intValue": strconv.FormatInt(v.AsInt64(), 10)}
	case attribute.FLOAT64:
		return jsonValue{"doubleValue": v.AsFloat64()}
	case attribute.STRINGSLICE:
		var vs []jsonValue
		for _, s := range v.AsStringSlice() {
			vs = append(vs, jsonValue{"stringValue": r.scrub(s)})
		}
		return jsonValue{"arrayValue": map[string]any{"values": vs}}
	case attribute.INT64SLICE:
		var vs []jsonValue
		for _, n := range v.AsInt64Slice() {
			vs = append(vs, jsonValue{"intValue": strconv.FormatInt(n, 10)})
		}
		return jsonValue{"arrayValue": map[string]any{"values": vs}}
	case attribute.BOOLSLICE:
		var vs []jsonValue
		for _, b := range v.AsBoolSlice() {
			vs = append(vs, jsonValue{"boolValue": b})
		}
		return jsonValue{"arrayValue": map[string]any{"values": vs}}
	case attribute.FLOAT64SLICE:
		var vs []jsonValue
		for _, f := range v.AsFloat64Slice() {
			vs = append(vs, jsonValue{"doubleValue": f})
		}
		return jsonValue{"arrayValue": map[string]any{"values": vs}}
	}
	return jsonValue{"stringValue": r.scrub(v.Emit())}
}
