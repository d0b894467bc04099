package telemetry

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// gotSpan is a span as the test receiver decoded it, from either encoding.
type gotSpan struct {
	TraceID, SpanID, ParentID, TraceState string
	Name                                  string
	Kind                                  int
	Flags                                 uint32
	Start, End                            uint64
	Attrs                                 map[string]any
	Events                                []gotEvent
	StatusCode                            int
	StatusMsg                             string
}

type gotEvent struct {
	Name  string
	Attrs map[string]any
}

// gotMetric is one histogram point as the receiver decoded it.
type gotMetric struct {
	Name, Unit  string
	Temporality int
	Attrs       map[string]any
	Count       uint64
	Sum         float64
	Buckets     []uint64
	Bounds      []float64
}

type gotRequest struct {
	Body     []byte // as received
	Path     string
	Metrics  []gotMetric
	Header   http.Header
	Resource map[string]any
	Scope    string
	Spans    []gotSpan
}

// receiver is an OTLP/HTTP collector on loopback decoding what it gets.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []gotRequest
	errs   []error
	status int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{status: http.StatusOK}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var got gotRequest
		var err error
		switch {
		case req.URL.Path == "/v1/metrics" && req.Header.Get("Content-Type") == "application/x-protobuf":
			got, err = decodeMetricsProtobuf(body)
		case req.URL.Path == "/v1/metrics" && req.Header.Get("Content-Type") == "application/json":
			got, err = decodeMetricsJSON(body)
		case req.URL.Path != "/v1/traces":
			err = fmt.Errorf("path %s", req.URL.Path)
		case req.Header.Get("Content-Type") == "application/x-protobuf":
			got, err = decodeProtobuf(body)
		case req.Header.Get("Content-Type") == "application/json":
			got, err = decodeJSON(body)
		default:
			err = fmt.Errorf("content type %q", req.Header.Get("Content-Type"))
		}
		got.Header, got.Path, got.Body = req.Header.Clone(), req.URL.Path, body
		r.mu.Lock()
		r.reqs = append(r.reqs, got)
		if err != nil {
			r.errs = append(r.errs, err)
		}
		status := r.status
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) requests(t *testing.T) []gotRequest {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, err := range r.errs {
		t.Errorf("receiver: %v", err)
	}
	return append([]gotRequest(nil), r.reqs...)
}

// ---- protobuf: a small wire-format reader ----

type field struct {
	num  int
	wire int
	u    uint64 // varint, fixed64, fixed32
	b    []byte // length-delimited
}

func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("bad tag")
		}
		b = b[n:]
		f := field{num: int(tag >> 3), wire: int(tag & 7)}
		switch f.wire {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("bad varint")
			}
			f.u, b = v, b[n:]
		case 1:
			if len(b) < 8 {
				return nil, fmt.Errorf("short fixed64")
			}
			f.u, b = binary.LittleEndian.Uint64(b), b[8:]
		case 5:
			if len(b) < 4 {
				return nil, fmt.Errorf("short fixed32")
			}
			f.u, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, fmt.Errorf("bad length")
			}
			f.b, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return nil, fmt.Errorf("wire type %d", f.wire)
		}
		out = append(out, f)
	}
	return out, nil
}

func mustFields(b []byte) []field {
	fs, err := fields(b)
	if err != nil {
		panic(err)
	}
	return fs
}

func pbValue(b []byte) any {
	for _, f := range mustFields(b) {
		switch f.num {
		case 1:
			return string(f.b)
		case 2:
			return f.u != 0
		case 3:
			return int64(f.u)
		case 4:
			return math.Float64frombits(f.u)
		case 5:
			var vs []any
			for _, e := range mustFields(f.b) {
				vs = append(vs, pbValue(e.b))
			}
			return vs
		}
	}
	return nil
}

func pbAttrs(into map[string]any, b []byte) {
	var k string
	var v any
	for _, f := range mustFields(b) {
		switch f.num {
		case 1:
			k = string(f.b)
		case 2:
			v = pbValue(f.b)
		}
	}
	into[k] = v
}

func decodeProtobuf(body []byte) (got gotRequest, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("protobuf: %v", p)
		}
	}()
	got.Resource = map[string]any{}
	top, err := fields(body)
	if err != nil {
		return got, err
	}
	for _, rs := range top { // resource_spans
		for _, f := range mustFields(rs.b) {
			switch f.num {
			case 1:
				for _, a := range mustFields(f.b) {
					pbAttrs(got.Resource, a.b)
				}
			case 2:
				for _, ss := range mustFields(f.b) {
					switch ss.num {
					case 1:
						for _, s := range mustFields(ss.b) {
							if s.num == 1 {
								got.Scope = string(s.b)
							}
						}
					case 2:
						got.Spans = append(got.Spans, pbSpan(ss.b))
					}
				}
			}
		}
	}
	return got, nil
}

func pbSpan(b []byte) gotSpan {
	s := gotSpan{Attrs: map[string]any{}}
	for _, f := range mustFields(b) {
		switch f.num {
		case 1:
			s.TraceID = hex.EncodeToString(f.b)
		case 2:
			s.SpanID = hex.EncodeToString(f.b)
		case 3:
			s.TraceState = string(f.b)
		case 4:
			s.ParentID = hex.EncodeToString(f.b)
		case 5:
			s.Name = string(f.b)
		case 6:
			s.Kind = int(f.u)
		case 7:
			s.Start = f.u
		case 8:
			s.End = f.u
		case 9:
			pbAttrs(s.Attrs, f.b)
		case 11:
			e := gotEvent{Attrs: map[string]any{}}
			for _, ef := range mustFields(f.b) {
				switch ef.num {
				case 2:
					e.Name = string(ef.b)
				case 3:
					pbAttrs(e.Attrs, ef.b)
				}
			}
			s.Events = append(s.Events, e)
		case 15:
			for _, sf := range mustFields(f.b) {
				switch sf.num {
				case 2:
					s.StatusMsg = string(sf.b)
				case 3:
					s.StatusCode = int(sf.u)
				}
			}
		case 16:
			if f.wire != 5 {
				panic("flags is not fixed32")
			}
			s.Flags = uint32(f.u)
		}
	}
	return s
}

// ---- JSON ----

type jValue struct {
	StringValue *string  `json:"stringValue"`
	BoolValue   *bool    `json:"boolValue"`
	IntValue    *string  `json:"intValue"` // int64 as a string, as the mapping says
	DoubleValue *float64 `json:"doubleValue"`
	ArrayValue  *struct {
		Values []jValue `json:"values"`
	} `json:"arrayValue"`
}

func (v jValue) get() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.IntValue != nil:
		n, err := strconv.ParseInt(*v.IntValue, 10, 64)
		if err != nil {
			panic(err)
		}
		return n
	case v.DoubleValue != nil:
		return *v.DoubleValue
	case v.ArrayValue != nil:
		var vs []any
		for _, e := range v.ArrayValue.Values {
			vs = append(vs, e.get())
		}
		return vs
	}
	return nil
}

type jKV struct {
	Key   string `json:"key"`
	Value jValue `json:"value"`
}

func jAttrs(kvs []jKV) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.get()
	}
	return m
}

func decodeJSON(body []byte) (got gotRequest, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("json: %v", p)
		}
	}()
	var req struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []jKV `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Scope struct {
					Name string `json:"name"`
				} `json:"scope"`
				Spans []struct {
					TraceID           string `json:"traceId"`
					SpanID            string `json:"spanId"`
					ParentSpanID      string `json:"parentSpanId"`
					TraceState        string `json:"traceState"`
					Flags             uint32 `json:"flags"`
					Name              string `json:"name"`
					Kind              int    `json:"kind"`
					StartTimeUnixNano string `json:"startTimeUnixNano"`
					EndTimeUnixNano   string `json:"endTimeUnixNano"`
					Attributes        []jKV  `json:"attributes"`
					Events            []struct {
						Name       string `json:"name"`
						Attributes []jKV  `json:"attributes"`
					} `json:"events"`
					Status struct {
						Message string `json:"message"`
						Code    int    `json:"code"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return got, err
	}
	for _, rs := range req.ResourceSpans {
		got.Resource = jAttrs(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			got.Scope = ss.Scope.Name
			for _, s := range ss.Spans {
				start, err1 := strconv.ParseUint(s.StartTimeUnixNano, 10, 64)
				end, err2 := strconv.ParseUint(s.EndTimeUnixNano, 10, 64)
				if err1 != nil || err2 != nil {
					return got, fmt.Errorf("times are not decimal strings: %q %q", s.StartTimeUnixNano, s.EndTimeUnixNano)
				}
				g := gotSpan{TraceID: s.TraceID, SpanID: s.SpanID, ParentID: s.ParentSpanID, TraceState: s.TraceState, Flags: s.Flags,
					Name: s.Name, Kind: s.Kind, Start: start, End: end, Attrs: jAttrs(s.Attributes), StatusCode: s.Status.Code, StatusMsg: s.Status.Message}
				for _, e := range s.Events {
					g.Events = append(g.Events, gotEvent{e.Name, jAttrs(e.Attributes)})
				}
				got.Spans = append(got.Spans, g)
			}
		}
	}
	return got, nil
}

func decodeMetricsProtobuf(body []byte) (got gotRequest, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("protobuf metrics: %v", p)
		}
	}()
	for _, rm := range mustFields(body) {
		for _, f := range mustFields(rm.b) {
			if f.num != 2 {
				continue
			}
			for _, sm := range mustFields(f.b) {
				if sm.num != 2 {
					continue
				}
				var name, unit string
				var hist []byte
				for _, mf := range mustFields(sm.b) {
					switch mf.num {
					case 1:
						name = string(mf.b)
					case 3:
						unit = string(mf.b)
					case 9:
						hist = mf.b
					}
				}
				var points [][]byte
				temporality := 0
				for _, hf := range mustFields(hist) {
					switch hf.num {
					case 1:
						points = append(points, hf.b)
					case 2:
						temporality = int(hf.u)
					}
				}
				for _, pt := range points {
					m := gotMetric{Name: name, Unit: unit, Temporality: temporality, Attrs: map[string]any{}}
					for _, pf := range mustFields(pt) {
						switch pf.num {
						case 9:
							pbAttrs(m.Attrs, pf.b)
						case 4:
							if pf.wire != 1 {
								panic("count is not fixed64")
							}
							m.Count = pf.u
						case 5:
							m.Sum = math.Float64frombits(pf.u)
						case 6:
							for b := pf.b; len(b) >= 8; b = b[8:] {
								m.Buckets = append(m.Buckets, binary.LittleEndian.Uint64(b))
							}
						case 7:
							for b := pf.b; len(b) >= 8; b = b[8:] {
								m.Bounds = append(m.Bounds, math.Float64frombits(binary.LittleEndian.Uint64(b)))
							}
						}
					}
					got.Metrics = append(got.Metrics, m)
				}
			}
		}
	}
	return got, nil
}

func decodeMetricsJSON(body []byte) (got gotRequest, err error) {
	var req struct {
		ResourceMetrics []struct {
			ScopeMetrics []struct {
				Metrics []struct {
					Name      string `json:"name"`
					Unit      string `json:"unit"`
					Histogram struct {
						AggregationTemporality int `json:"aggregationTemporality"`
						DataPoints             []struct {
							Attributes     []jKV     `json:"attributes"`
							Count          string    `json:"count"`
							Sum            float64   `json:"sum"`
							BucketCounts   []string  `json:"bucketCounts"`
							ExplicitBounds []float64 `json:"explicitBounds"`
						} `json:"dataPoints"`
					} `json:"histogram"`
				} `json:"metrics"`
			} `json:"scopeMetrics"`
		} `json:"resourceMetrics"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return got, err
	}
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, dp := range m.Histogram.DataPoints {
					count, err := strconv.ParseUint(dp.Count, 10, 64)
					if err != nil {
						return got, fmt.Errorf("count %q is not a decimal string", dp.Count)
					}
					g := gotMetric{Name: m.Name, Unit: m.Unit, Temporality: m.Histogram.AggregationTemporality, Attrs: jAttrs(dp.Attributes),
						Count: count, Sum: dp.Sum, Bounds: dp.ExplicitBounds}
					for _, c := range dp.BucketCounts {
						n, err := strconv.ParseUint(c, 10, 64)
						if err != nil {
							return got, fmt.Errorf("bucket count %q is not a decimal string", c)
						}
						g.Buckets = append(g.Buckets, n)
					}
					got.Metrics = append(got.Metrics, g)
				}
			}
		}
	}
	return got, nil
}
