package telemetry

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai/faux"
)

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestLoadOffByDefault(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"OTEL_SERVICE_NAME": "x", "TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_SDK_DISABLED": "true"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_TRACES_EXPORTER": "none"},
	} {
		c, err := Load(lookup(env))
		if err != nil || c.Enabled || New(c, Options{}) != nil {
			t.Errorf("%v: enabled %v, err %v", env, c.Enabled, err)
		}
	}
}

func TestLoadReadsTheStandardVariables(t *testing.T) {
	c, err := Load(lookup(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":                        "https://otel.example:4318/",
		"OTEL_EXPORTER_OTLP_HEADERS":                         "x-team=ci,Authorization=Bearer%20abc",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":                  "x-team=agents",
		"OTEL_EXPORTER_OTLP_PROTOCOL":                        "http/json",
		"OTEL_RESOURCE_ATTRIBUTES":                           "deployment.environment=ci,service.name=ignored",
		"OTEL_SERVICE_NAME":                                  "agent",
		"OTEL_TRACES_SAMPLER":                                "traceidratio",
		"OTEL_TRACES_SAMPLER_ARG":                            "0.25",
		"TRACEPARENT":                                        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		"TRACESTATE":                                         "v=1",
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Enabled || c.Endpoint != "https://otel.example:4318/v1/traces" || c.Protocol != ProtoJSON || c.ServiceName != "agent" ||
		c.Headers["x-team"] != "agents" || c.Headers["Authorization"] != "Bearer abc" || c.Sampler != "traceidratio" || c.SamplerArg != 0.25 ||
		c.TraceState != "v=1" || !c.CaptureContent || len(c.Resource) != 1 || c.Resource[0] != (KeyValue{"deployment.environment", "ci"}) ||
		c.FlushTimeout != DefaultFlushTimeout {
		t.Errorf("config %+v", c)
	}
	c, err = Load(lookup(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2/traces"}))
	if err != nil || c.Endpoint != "http://b:2/traces" || c.Protocol != ProtoProtobuf || c.ServiceName != "gopi" || c.Sampler != "parentbased_always_on" {
		t.Errorf("config %+v, %v", c, err)
	}
}

func TestLoadRefusesWhatItCannotUse(t *testing.T) {
	for env, want := range map[[2]string]string{
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}:                     "set it to http/protobuf or http/json",
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"}:           "http:// or https://",
		{"OTEL_TRACES_SAMPLER", "sometimes"}:                        "use one of always_on",
		{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization Bearer-s3cr"}: "OTEL_EXPORTER_OTLP_HEADERS is not a list",
	} {
		m := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", env[0]: env[1]}
		c, err := Load(lookup(m))
		if err == nil || c.Enabled || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), env[0]) {
			t.Errorf("%s=%s: %v, want %q", env[0], env[1], err, want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr") {
			t.Errorf("the error shows the header's value: %v", err)
		}
	}
}

// A collector that is down, slow or failing costs one bounded flush and
// one line on stderr; the run's outcome is its own.
func TestCollectorFailureCostsOneLine(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer failing.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	for _, c := range []struct{ name, url, want string }{
		{"slow", slow.URL, "no answer within 200ms"},
		{"500", failing.URL, "the collector answered 500 Internal Server Error"},
		{"down", down, "nothing accepts connections there"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr := record(t, scenario{model: faux.New(faux.Text("hi")), telCfg: func(cfg *Config) {
				cfg.Endpoint, cfg.FlushTimeout = c.url+"/v1/traces", 200*time.Millisecond
				cfg.Headers["Authorization"] = "Bearer collector-secret"
			}})
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "the run is not affected") {
				t.Errorf("stderr %q, want one line saying %q", stderr, c.want)
			}
			if strings.Contains(stderr, "collector-secret") {
				t.Errorf("stderr shows the header: %q", stderr)
			}
		})
	}
}

// The "telemetry" settings key means what the variables mean; a variable
// the environment sets wins.
func TestSettingsUnderTheEnvironment(t *testing.T) {
	yes, ratio := true, 0.5
	s := Settings{Endpoint: "http://collector:4318", Headers: map[string]string{"x-key": "a b,c"}, Protocol: "http/json",
		ServiceName: "from-settings", ResourceAttributes: map[string]string{"team": "ci"}, Sampler: "traceidratio", SamplerArg: &ratio,
		CaptureContent: &yes}
	c, err := Load(s.Under(lookup(map[string]string{"OTEL_SERVICE_NAME": "from-env", "OTEL_EXPORTER_OTLP_PROTOCOL": ""})))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Enabled || c.Endpoint != "http://collector:4318/v1/traces" || c.Headers["x-key"] != "a b,c" || c.Protocol != ProtoJSON ||
		c.ServiceName != "from-env" || len(c.Resource) != 1 || c.Resource[0] != (KeyValue{"team", "ci"}) || c.SamplerArg != 0.5 || !c.CaptureContent {
		t.Errorf("config %+v", c)
	}
	c, err = Load(Settings{Endpoint: "http://collector:4318", Disabled: &yes}.Under(lookup(nil)))
	if err != nil || c.Enabled {
		t.Errorf("disabled in settings: %+v %v", c, err)
	}
	c, err = Load(Settings{}.Under(lookup(nil)))
	if err != nil || c.Enabled {
		t.Errorf("empty settings: %+v %v", c, err)
	}
}
