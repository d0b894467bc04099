package telemetry

import (
	"slices"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
)

// With a base endpoint, the GenAI client metrics go to its /v1/metrics
// after the spans: cumulative histograms of each request's duration and
// its input and output tokens, in both encodings.
func TestMetricsFollowTheSpans(t *testing.T) {
	for _, proto := range []string{ProtoProtobuf, ProtoJSON} {
		t.Run(proto, func(t *testing.T) {
			usage := ai.Usage{Input: 300, Output: 20}
			var reqs []gotRequest
			reqs, _ = record(t, scenario{model: faux.New(faux.Response{ToolCalls: []faux.ToolCall{{Name: "echo"}}, Usage: &usage},
				faux.Response{Text: "done", Usage: &usage}),
				telCfg: func(c *Config) {
					c.Protocol = proto
					c.MetricsEndpoint = c.Endpoint[:len(c.Endpoint)-len("/v1/traces")] + "/v1/metrics"
				}})
			if len(reqs) != 2 || reqs[0].Path != "/v1/traces" || reqs[1].Path != "/v1/metrics" {
				t.Fatalf("%d requests: %v", len(reqs), paths(reqs))
			}
			ms := reqs[1].Metrics
			if len(ms) != 3 {
				t.Fatalf("%d points: %+v", len(ms), ms)
			}
			d := ms[0]
			if d.Name != "gen_ai.client.operation.duration" || d.Unit != "s" || d.Temporality != 2 || d.Count != 2 ||
				!slices.Equal(d.Bounds, durationBounds) || len(d.Buckets) != len(durationBounds)+1 || sum(d.Buckets) != 2 {
				t.Errorf("duration %+v", d)
			}
			wantAttrs(t, gotSpan{Name: d.Name, Attrs: d.Attrs}, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "faux",
				"gen_ai.request.model": "faux", "gen_ai.response.model": "faux"})
			for i, typ := range []string{"input", "output"} {
				m := ms[1+i]
				want := float64(2 * usage.Input)
				if typ == "output" {
					want = float64(2 * usage.Output)
				}
				if m.Name != "gen_ai.client.token.usage" || m.Unit != "{token}" || m.Count != 2 || m.Sum != want ||
					m.Attrs["gen_ai.token.type"] != typ || !slices.Equal(m.Bounds, tokenBounds) {
					t.Errorf("%s tokens %+v", typ, m)
				}
			}
			// 300 falls in (256, 1024], 20 in (16, 64]
			if ms[1].Buckets[5] != 2 || ms[2].Buckets[3] != 2 {
				t.Errorf("buckets: input %v, output %v", ms[1].Buckets, ms[2].Buckets)
			}
		})
	}
}

func TestLoadMetricsEndpoint(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}, "http://c:4318/v1/metrics"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/t"}, ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/t", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://m:1/m"}, "http://m:1/m"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "none"}, ""},
	} {
		cfg, err := Load(lookup(c.env))
		if err != nil || cfg.MetricsEndpoint != c.want {
			t.Errorf("%v: metrics endpoint %q, %v; want %q", c.env, cfg.MetricsEndpoint, err, c.want)
		}
	}
}

func paths(reqs []gotRequest) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Path)
	}
	return out
}

func sum(xs []uint64) (n uint64) {
	for _, x := range xs {
		n += x
	}
	return n
}
