package cmd

import (
	"encoding/json"
	"regexp"
	"runtime"
	"runtime/debug"
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

// What a release build records is shown: the module version, the
// revision shortened, "+dirty" for uncommitted changes, the commit time.
func TestVersionShowsTheVCSStamp(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "gopi", Version: "v1.2.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "3f2c1a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"},
			{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}
	v := readBuildVersion(info, true)
	if got, want := v.String(), "gopi v1.2.0 (3f2c1a9b8d7e+dirty, 2026-05-01T10:00:00Z, go1.26.0)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b, _ := json.Marshal(v)
	if got, want := string(b), `{"version":"v1.2.0","revision":"3f2c1a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a","time":"2026-05-01T10:00:00Z","modified":true,"go":"go1.26.0"}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
	info.Settings[3].Value = "false"
	if got, want := readBuildVersion(info, true).String(), "gopi v1.2.0 (3f2c1a9b8d7e, 2026-05-01T10:00:00Z, go1.26.0)"; got != want {
		t.Errorf("clean checkout: got %q, want %q", got, want)
	}
	if got := readBuildVersion(nil, false).String(); got != "gopi (devel) ("+runtime.Version()+")" {
		t.Errorf("no build info: %q", got)
	}
}

// A release build stamps the revision with -X when Go's VCS stamp is off.
func TestVersionRevisionFromLinker(t *testing.T) {
	old := revision
	revision = "b489345"
	defer func() { revision = old }()
	if got := readBuildVersion(nil, false).String(); got != "gopi (devel) (b489345, "+runtime.Version()+")" {
		t.Errorf("got %q", got)
	}
}
