package cmd

import (
	"encoding/json"
	"regexp"
	"runtime"
	"testing"
)

// A test binary records no module version and no VCS stamp: gopi version
// says "(devel)" and the Go version, and --json gives the same fields.
func TestVersionThroughMain(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	stdout, stderr, code := runMain(t, sys, "version")
	line := regexp.MustCompile(`^gopi \(devel\) \(([0-9a-f]{1,12}(\+dirty)?, )?(\S+, )?` + regexp.QuoteMeta(runtime.Version()) + `\)\n$`)
	if code != 0 || stderr != "" || !line.MatchString(stdout) {
		t.Fatalf("gopi version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = runMain(t, sys, "version", "--json")
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != 0 {
		t.Fatalf("gopi version --json: exit %d, %v: %q", code, err, stdout)
	}
	if v["version"] != "(devel)" || v["go"] != runtime.Version() || v["modified"] != false {
		t.Errorf("gopi version --json: %v", v)
	}
	if _, ok := v["revision"]; ok {
		t.Errorf("a test binary has no VCS stamp, yet: %v", v)
	}
}
