// Package buildinfo says which source the running binary was built from,
// as far as the build recorded it: the module version (or the one set
// with -X at link time), the VCS revision and time, uncommitted changes,
// the Go toolchain. It reads only what the linker and the Go runtime
// recorded; it never fails (a build that recorded nothing is "(devel)").
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version is set at build time with -ldflags "-X gopi/internal/buildinfo.version=…";
// without it the module version from the build info is shown.
var version = ""

// revision is the commit, set by scripts/release with
// -X gopi/internal/buildinfo.revision=… for builds where Go's own VCS
// stamp is off (-buildvcs=false); the stamp, when present, wins.
var revision = ""

// Info is what gopi version reports.
type Info struct {
	Version  string `json:"version"`            // the module version, "(devel)" for a build from a checkout without one
	Revision string `json:"revision,omitempty"` // the VCS commit (go build stamps it in a checkout)
	Time     string `json:"time,omitempty"`     // the commit's time
	Modified bool   `json:"modified"`           // the checkout had uncommitted changes
	Go       string `json:"go"`                 // the Go toolchain
}

// Stamped is the version set with -X at link time, "" when none was.
func Stamped() string { return version }

// Read is the running binary's Info.
func Read() Info {
	info, ok := debug.ReadBuildInfo()
	return FromBuild(info, ok)
}

// FromBuild reads a build info (ok false: none was recorded).
func FromBuild(info *debug.BuildInfo, ok bool) Info {
	v := Info{Version: version, Go: runtime.Version()}
	if ok {
		if v.Version == "" {
			v.Version = info.Main.Version
		}
		if info.GoVersion != "" {
			v.Go = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.Revision == "" {
		v.Revision = revision
	}
	return v
}

// String is the one line of gopi version, e.g.
// "gopi v1.2.0 (3f2c1a9b8d7e+dirty, 2026-05-01T10:00:00Z, go1.26.0)".
func (v Info) String() string {
	var parts []string
	if r := v.Revision; r != "" {
		if len(r) > 12 {
			r = r[:12]
		}
		if v.Modified {
			r += "+dirty"
		}
		parts = append(parts, r)
	}
	if v.Time != "" {
		parts = append(parts, v.Time)
	}
	parts = append(parts, v.Go)
	return "gopi " + v.Version + " (" + strings.Join(parts, ", ") + ")"
}
