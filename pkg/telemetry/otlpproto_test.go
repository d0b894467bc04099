package telemetry

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"gopi/pkg/ai/faux"
	"gopi/pkg/extension"
)

// The hand-written protobuf is read by the OpenTelemetry project's own
// generated code (TracesData and MetricsData have the export requests'
// wire shape) to the same spans and points, with no field it does not
// know.
func TestProtobufReadByTheOfficialTypes(t *testing.T) {
	host := extension.NewHost(extension.Options{})
	host.BeforeTool("guard", func(_ context.Context, c extension.Call) extension.Decision {
		if c.Name == "mcp__files__echo" {
			return extension.Deny("no")
		}
		return extension.Allow()
	})
	reqs, _ := record(t, scenario{model: faux.New(faux.Call("echo", `{"a":1}`), faux.Call("mcp__files__echo", `{}`), faux.Text("done")), host: host,
		telCfg: func(c *Config) {
			c.TraceParent, c.TraceState = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "k=v"
			c.CaptureContent = true
			c.MetricsEndpoint = c.Endpoint[:len(c.Endpoint)-len("/v1/traces")] + "/v1/metrics"
		}})
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var td tracepb.TracesData
	if err := proto.Unmarshal(reqs[0].Body, &td); err != nil {
		t.Fatal(err)
	}
	checkKnown(t, td.ProtoReflect())
	rs := td.GetResourceSpans()
	if len(rs) != 1 || len(rs[0].GetScopeSpans()) != 1 || rs[0].GetScopeSpans()[0].GetScope().GetName() != "gopi" {
		t.Fatalf("shape: %v", &td)
	}
	if v := attr(rs[0].GetResource().GetAttributes(), "service.name"); v.GetStringValue() != "gopi" {
		t.Errorf("service.name %v", v)
	}
	spans := rs[0].GetScopeSpans()[0].GetSpans()
	ours := reqs[0].Spans
	if len(spans) != len(ours) || len(spans) != 6 {
		t.Fatalf("%d spans read, %d by our reader", len(spans), len(ours))
	}
	for i, s := range spans {
		o := ours[i]
		if s.GetName() != o.Name || hex.EncodeToString(s.GetTraceId()) != o.TraceID || hex.EncodeToString(s.GetSpanId()) != o.SpanID ||
			hex.EncodeToString(s.GetParentSpanId()) != o.ParentID || int(s.GetKind()) != o.Kind || s.GetFlags() != o.Flags ||
			s.GetStartTimeUnixNano() != o.Start || s.GetEndTimeUnixNano() != o.End || s.GetTraceState() != o.TraceState ||
			int(s.GetStatus().GetCode()) != o.StatusCode || s.GetStatus().GetMessage() != o.StatusMsg || len(s.GetEvents()) != len(o.Events) {
			t.Errorf("span %d: %v\nours: %+v", i, s, o)
		}
		if len(s.GetAttributes()) != len(o.Attrs) {
			t.Errorf("span %s: %d attributes, ours %d", s.GetName(), len(s.GetAttributes()), len(o.Attrs))
		}
		for _, kv := range s.GetAttributes() {
			if got, want := value(kv.GetValue()), fmt.Sprint(o.Attrs[kv.GetKey()]); got != want {
				t.Errorf("span %s: %s = %s, ours %s", s.GetName(), kv.GetKey(), got, want)
			}
		}
	}
	var md metricspb.MetricsData
	if err := proto.Unmarshal(reqs[1].Body, &md); err != nil {
		t.Fatal(err)
	}
	checkKnown(t, md.ProtoReflect())
	ms := md.GetResourceMetrics()[0].GetScopeMetrics()[0].GetMetrics()
	if len(ms) != len(reqs[1].Metrics) || len(ms) != 3 {
		t.Fatalf("%d metrics read, %d by our reader", len(ms), len(reqs[1].Metrics))
	}
	for i, m := range ms {
		o := reqs[1].Metrics[i]
		h := m.GetHistogram()
		dp := h.GetDataPoints()[0]
		if m.GetName() != o.Name || m.GetUnit() != o.Unit || int(h.GetAggregationTemporality()) != o.Temporality || dp.GetCount() != o.Count ||
			dp.GetSum() != o.Sum || fmt.Sprint(dp.GetBucketCounts()) != fmt.Sprint(o.Buckets) || fmt.Sprint(dp.GetExplicitBounds()) != fmt.Sprint(o.Bounds) ||
			dp.GetMin() > dp.GetMax() || dp.GetTimeUnixNano() < dp.GetStartTimeUnixNano() || len(dp.GetAttributes()) != len(o.Attrs) {
			t.Errorf("metric %d: %v\nours: %+v", i, m, o)
		}
	}
}

// checkKnown fails on a field the official types do not know, anywhere.
func checkKnown(t *testing.T, m protoreflect.Message) {
	t.Helper()
	if len(m.GetUnknown()) > 0 {
		t.Errorf("%s has unknown fields", m.Descriptor().FullName())
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				checkKnown(t, v.List().Get(i).Message())
			}
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			checkKnown(t, v.Message())
		}
		return true
	})
}

func attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return kv.GetValue()
		}
	}
	return nil
}

// value prints an AnyValue as fmt prints our reader's value.
func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var vs []any
		for _, e := range x.ArrayValue.GetValues() {
			switch ev := e.GetValue().(type) {
			case *commonpb.AnyValue_StringValue:
				vs = append(vs, ev.StringValue)
			default:
				vs = append(vs, value(e))
			}
		}
		return fmt.Sprint(vs)
	}
	return fmt.Sprintf("%T", v.GetValue())
}
