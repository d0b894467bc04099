package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X gopi/cmd.version=…";
// without it the module version from the build info is shown.
var version = ""

// revision is the commit, set by scripts/release with -X gopi/cmd.revision=…
// for builds where Go's own VCS stamp is off (-buildvcs=false); the stamp,
// when present, wins.
var revision = ""

// buildVersion is what gopi version reports: which source the binary was
// built from, as far as the build recorded it.
type buildVersion struct {
	Version  string `json:"version"`            // the module version, "(devel)" for a build from a checkout without one
	Revision string `json:"revision,omitempty"` // the VCS commit (go build stamps it in a checkout)
	Time     string `json:"time,omitempty"`     // the commit's time
	Modified bool   `json:"modified"`           // the checkout had uncommitted changes
	Go       string `json:"go"`                 // the Go toolchain
}

func newVersionCmd(sys *System) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print gopi's version, the commit it was built from, and the Go version",
		Long: `Print gopi's module version, the VCS revision and time it was built from
("+dirty" when the checkout had uncommitted changes), and the Go version.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return printVersion(sys, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON: version, revision, time, modified, go")
	return c
}

// printVersion is gopi version (and gopi --version): one line, or one
// JSON object.
func printVersion(sys *System, asJSON bool) error {
	info, ok := debug.ReadBuildInfo()
	v := readBuildVersion(info, ok)
	if asJSON {
		return json.NewEncoder(sys.Stdout).Encode(v)
	}
	_, err := fmt.Fprintln(sys.Stdout, v)
	return err
}

// readBuildVersion reads the build info (ok false: none was recorded).
func readBuildVersion(info *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{Version: version, Go: runtime.Version()}
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
func (v buildVersion) String() string {
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
