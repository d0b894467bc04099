package buildinfo

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"testing"
)

// What a release build records is shown: the module version, the
// revision shortened, "+dirty" for uncommitted changes, the commit time.
func TestShowsTheVCSStamp(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "gopi", Version: "v1.2.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "3f2c1a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"},
			{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}
	v := FromBuild(info, true)
	if got, want := v.String(), "gopi v1.2.0 (3f2c1a9b8d7e+dirty, 2026-05-01T10:00:00Z, go1.26.0)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b, _ := json.Marshal(v)
	if got, want := string(b), `{"version":"v1.2.0","revision":"3f2c1a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a","time":"2026-05-01T10:00:00Z","modified":true,"go":"go1.26.0"}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
	info.Settings[3].Value = "false"
	if got, want := FromBuild(info, true).String(), "gopi v1.2.0 (3f2c1a9b8d7e, 2026-05-01T10:00:00Z, go1.26.0)"; got != want {
		t.Errorf("clean checkout: got %q, want %q", got, want)
	}
	if got := FromBuild(nil, false).String(); got != "gopi (devel) ("+runtime.Version()+")" {
		t.Errorf("no build info: %q", got)
	}
}

// A build without a module version is "(devel)"; the Go version of the
// build info wins over the running one's.
func TestDevelAndToolchain(t *testing.T) {
	v := FromBuild(&debug.BuildInfo{GoVersion: "go1.99.0", Main: debug.Module{Path: "gopi"}}, true)
	if v.Version != "(devel)" || v.Go != "go1.99.0" || v.Revision != "" || v.Modified {
		t.Errorf("got %+v", v)
	}
	if got, want := v.String(), "gopi (devel) (go1.99.0)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A release build stamps the version and revision with -X: the version
// wins over the module's, the VCS stamp over the revision.
func TestLinkerStamps(t *testing.T) {
	oldV, oldR := version, revision
	defer func() { version, revision = oldV, oldR }()
	version, revision = "v9.9.9", "b489345"
	if got := FromBuild(nil, false).String(); got != "gopi v9.9.9 (b489345, "+runtime.Version()+")" {
		t.Errorf("got %q", got)
	}
	if Stamped() != "v9.9.9" {
		t.Errorf("Stamped %q", Stamped())
	}
	revision = "1234567890abc" // 13 characters: 12 shown
	if got := FromBuild(nil, false).String(); got != "gopi v9.9.9 (1234567890ab, "+runtime.Version()+")" {
		t.Errorf("got %q", got)
	}
	info := &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}
	if v := FromBuild(info, true); v.Version != "v9.9.9" || v.Revision != "abc" {
		t.Errorf("got %+v", v)
	}
}

// The running binary's info reads without failing.
func TestRead(t *testing.T) {
	if v := Read(); v.Version == "" || v.Go == "" {
		t.Errorf("got %+v", v)
	}
}
