package cmd

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gopi/pkg/ai"
	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
)

// outputMode reads gopi run's output mode from its parsed flags: --json is
// --mode json, and of several --mode the last counts. --json together with
// a --mode that names another output is a usage error; it is reported in
// json (--json wins for the failure), so that a caller reading one JSON
// line gets it.
func outputMode(f *pflag.FlagSet) (mode.Mode, error) {
	m, _ := f.GetString("mode")
	j, _ := f.GetBool("json")
	return pickMode(m, f.Changed("mode"), j)
}

// textMode is pi's name of print mode (--mode text).
const textMode = "text"

// pickMode is outputMode of --mode m (modeGiven: given explicitly) and
// --json.
func pickMode(m string, modeGiven, json bool) (mode.Mode, error) {
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

// runFlagError reports a flag error of gopi run in the output mode the
// arguments ask for: json and events promise one result object for every
// invocation, also one whose flags do not parse.
func runFlagError(sys *System) func(*cobra.Command, error) error {
	return func(c *cobra.Command, err error) error {
		uerr := flagUsageErr(c, err)
		m := lenientMode(c.Flags(), sys.args)
		if m != mode.JSON && m != mode.Events {
			return uerr
		}
		out := mode.IO{Out: sys.Stdout, Err: sys.Stderr}
		if werr := mode.WriteFailure(out, m, ai.ClassUsage, uerr, nil, nil, 0); werr != nil {
			return werr
		}
		return &reported{code: exitcode.Usage}
	}
}

// lenientMode reads the output mode from args as the flag parser would
// have, had it not stopped at an error: with the same flag definitions
// (so a flag's value is never taken for a flag, and nothing after "--"
// counts), skipping unknown flags and accepting every value. A --json
// whose value is not a boolean (--json=maybe) does not ask for json.
func lenientMode(defs *pflag.FlagSet, args []string) mode.Mode {
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
	m, _ := outputMode(fs)
	return m
}

// lenientValue takes any value of a flag and keeps the last, under the
// flag's own type name, so that GetBool and GetString parse it as given.
type lenientValue struct{ typ, val string }

func (v *lenientValue) String() string     { return v.val }
func (v *lenientValue) Set(s string) error { v.val = s; return nil }
func (v *lenientValue) Type() string       { return v.typ }
