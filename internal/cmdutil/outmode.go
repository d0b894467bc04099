package cmdutil

import (
	"io"

	"github.com/spf13/pflag"

	"gopi/pkg/mode"
)

// OutputMode reads gopi run's output mode from its parsed flags: --json is
// --mode json, and of several --mode the last counts. --json together with
// a --mode that names another output is a usage error; it is reported in
// json (--json wins for the failure), so that a caller reading one JSON
// line gets it.
func OutputMode(f *pflag.FlagSet) (mode.Mode, error) {
	m, _ := f.GetString("mode")
	j, _ := f.GetBool("json")
	return PickMode(m, f.Changed("mode"), j)
}

// textMode is pi's name of print mode (--mode text).
const textMode = "text"

// PickMode is OutputMode of --mode m (modeGiven: given explicitly) and
// --json.
func PickMode(m string, modeGiven, json bool) (mode.Mode, error) {
	if m == textMode {
		m = string(mode.Print)
	}
	if !json {
		return mode.Mode(m), nil
	}
	if modeGiven && m != string(mode.JSON) {
		return mode.JSON, usageErr("--json and --mode %s ask for different outputs: give one of them", m)
	}
	return mode.JSON, nil
}

// LenientMode reads the output mode from args as the flag parser would
// have, had it not stopped at an error: with the same flag definitions
// (so a flag's value is never taken for a flag, and nothing after "--"
// counts), skipping unknown flags and accepting every value. A --json
// whose value is not a boolean (--json=maybe) does not ask for json.
func LenientMode(defs *pflag.FlagSet, args []string) mode.Mode {
	fs := pflag.NewFlagSet("lenient", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defs.VisitAll(func(f *pflag.Flag) {
		fs.AddFlag(&pflag.Flag{Name: f.Name, Shorthand: f.Shorthand, Usage: f.Usage, NoOptDefVal: f.NoOptDefVal,
			DefValue: f.DefValue, Value: &lenientValue{typ: f.Value.Type(), val: f.DefValue}})
	})
	// The only errors left are a value missing at the very end; what was
	// read before it stands.
	_ = fs.Parse(args)
	m, _ := OutputMode(fs)
	return m
}

// lenientValue takes any value of a flag and keeps the last, under the
// flag's own type name, so that GetBool and GetString parse it as given.
type lenientValue struct{ typ, val string }

func (v *lenientValue) String() string     { return v.val }
func (v *lenientValue) Set(s string) error { v.val = s; return nil }
func (v *lenientValue) Type() string       { return v.typ }
