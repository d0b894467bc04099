package telemetry

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Settings are the "telemetry" settings key. Each has the meaning of its
// OTEL_* variable, which wins when the environment sets it.
type Settings struct {
	Endpoint           string            `json:"endpoint"`           // OTEL_EXPORTER_OTLP_ENDPOINT
	TracesEndpoint     string            `json:"tracesEndpoint"`     // OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
	Headers            map[string]string `json:"headers"`            // OTEL_EXPORTER_OTLP_HEADERS
	Protocol           string            `json:"protocol"`           // OTEL_EXPORTER_OTLP_PROTOCOL
	ServiceName        string            `json:"serviceName"`        // OTEL_SERVICE_NAME
	ResourceAttributes map[string]string `json:"resourceAttributes"` // OTEL_RESOURCE_ATTRIBUTES
	Sampler            string            `json:"sampler"`            // OTEL_TRACES_SAMPLER
	SamplerArg         *float64          `json:"samplerArg"`         // OTEL_TRACES_SAMPLER_ARG
	CaptureContent     *bool             `json:"captureContent"`     // OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
	Disabled           *bool             `json:"disabled"`           // OTEL_SDK_DISABLED
}

// settingNames are the settings' names of the variables: an array, laid
// out by the linker, where a map would be built at every start.
var settingNames = [...]struct{ v, name string }{
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "endpoint"},
	{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "tracesEndpoint"},
	{"OTEL_EXPORTER_OTLP_HEADERS", "headers"},
	{"OTEL_EXPORTER_OTLP_PROTOCOL", "protocol"},
	{"OTEL_SERVICE_NAME", "serviceName"},
	{"OTEL_RESOURCE_ATTRIBUTES", "resourceAttributes"},
	{"OTEL_TRACES_SAMPLER", "sampler"},
	{"OTEL_TRACES_SAMPLER_ARG", "samplerArg"},
}

// LoadWith is Load of env over s; an error names the setting a value
// came from when the environment did not give it.
func LoadWith(env func(string) (string, bool), s Settings) (Config, error) {
	c, err := Load(s.Under(env))
	if err == nil {
		return c, nil
	}
	msg := err.Error()
	for _, n := range settingNames {
		if rest, ok := strings.CutPrefix(msg, n.v+" "); ok {
			if ev, set := env(n.v); !set || ev == "" {
				return Config{}, fmt.Errorf("settings \"telemetry\": %q %s", n.name, rest)
			}
		}
	}
	return Config{}, err
}

// Under returns env with s beneath it: a variable env does not set is
// read from the settings.
func (s Settings) Under(env func(string) (string, bool)) func(string) (string, bool) {
	vars := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        s.Endpoint,
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": s.TracesEndpoint,
		"OTEL_EXPORTER_OTLP_HEADERS":         list(s.Headers),
		"OTEL_EXPORTER_OTLP_PROTOCOL":        s.Protocol,
		"OTEL_SERVICE_NAME":                  s.ServiceName,
		"OTEL_RESOURCE_ATTRIBUTES":           list(s.ResourceAttributes),
		"OTEL_TRACES_SAMPLER":                s.Sampler,
	}
	if s.SamplerArg != nil {
		vars["OTEL_TRACES_SAMPLER_ARG"] = strconv.FormatFloat(*s.SamplerArg, 'g', -1, 64)
	}
	if s.CaptureContent != nil {
		vars["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = strconv.FormatBool(*s.CaptureContent)
	}
	if s.Disabled != nil {
		vars["OTEL_SDK_DISABLED"] = strconv.FormatBool(*s.Disabled)
	}
	return func(k string) (string, bool) {
		if v, ok := env(k); ok && v != "" {
			return v, true
		}
		v, ok := vars[k]
		return v, ok && v != ""
	}
}

// list writes a map as the OTEL_* variables' key=value list, escaped.
func list(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(url.PathEscape(k) + "=" + url.PathEscape(m[k]))
	}
	return b.String()
}
