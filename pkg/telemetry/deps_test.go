package telemetry

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Telemetry off costs a run nothing at start-up: every package linked
// runs its init functions at every start of gopi, on or off, so
// pkg/telemetry brings nothing beyond the standard library (gopi's
// packages it imports are linked anyway). The OpenTelemetry SDK brought
// 13 packages with init work (about 0.2 ms and 11 KB at every start, and
// 1.3 MB of binary); the API's trace and propagation packages alone
// bring six (semconv, the global error handler). The spans are recorded
// here instead (span.go).
func TestLinksOnlyTheStandardLibrary(t *testing.T) {
	list := func(args ...string) []string {
		cmd := exec.Command("go", append([]string{"list"}, args...)...)
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
		}
		return strings.Fields(string(out))
	}
	var own []string
	for _, p := range list("-f", "{{join .Imports \"\\n\"}}", ".") {
		if !strings.HasPrefix(p, "gopi/") {
			own = append(own, p)
		}
	}
	if extra := list(append([]string{"-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, own...)...); len(extra) > 0 {
		t.Errorf("pkg/telemetry links packages beyond the standard library: %s", strings.Join(extra, " "))
	}
}
