package telemetry

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Linking telemetry costs every start of gopi, on or off, the init
// functions of what it links. That is the tracer SDK's own closure
// (go.opentelemetry.io/otel/sdk/trace: the global otel package, its
// resource, semconv and observability packages come with it) and
// nothing more: no package of ours brings another OpenTelemetry package,
// a semantic-conventions version of its own, an exporter or a metrics SDK.
func TestLinksNothingBeyondTheTracerSDK(t *testing.T) {
	list := func(args ...string) []string {
		cmd := exec.Command("go", append([]string{"list"}, args...)...)
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
		}
		return strings.Fields(string(out))
	}
	const notStd = "{{if not .Standard}}{{.ImportPath}}{{end}}"
	// what the package imports itself, gopi's packages aside (their
	// dependencies are not telemetry's)
	var own []string
	for _, p := range list("-f", "{{join .Imports \"\\n\"}}", ".") {
		if !strings.HasPrefix(p, "gopi/") {
			own = append(own, p)
		}
	}
	sdk := list("-deps", "-f", notStd, "go.opentelemetry.io/otel/sdk/trace")
	var extra []string
	for _, p := range list(append([]string{"-deps", "-f", notStd}, own...)...) {
		if !slices.Contains(sdk, p) {
			extra = append(extra, p)
		}
	}
	if len(extra) > 0 {
		t.Errorf("pkg/telemetry links what the tracer SDK does not: %s", strings.Join(extra, " "))
	}
}
