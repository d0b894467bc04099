package cmdutil

import (
	"errors"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mode"
)

// runFlags are the flags of gopi run that bear on the output mode, and
// some whose values could be taken for a flag.
func runFlags() *pflag.FlagSet {
	f := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.String("mode", string(mode.Print), "")
	f.Bool("json", false, "")
	f.String("session", "", "")
	f.BoolP("continue", "c", false, "")
	f.Int("max-steps", 50, "")
	f.Duration("timeout", time.Minute, "")
	return f
}

// A flag error is reported in the mode the arguments ask for, read as the
// flag parser reads them (the hand-made reader of the raw arguments
// disagreed with it: --json=t was not json).
func TestLenientModeReadsArgsAsTheFlagParser(t *testing.T) {
	cases := []struct {
		args []string
		mode string
	}{
		{[]string{"run", "--json", "x"}, "json"},
		{[]string{"run", "--json=t", "--bogus", "x"}, "json"},
		{[]string{"run", "--bogus", "--json=1"}, "json"},
		{[]string{"run", "--json=maybe"}, "print"}, // not a boolean: not json
		{[]string{"run", "--mode", "events", "x"}, "events"},
		{[]string{"run", "--mode=json"}, "json"},
		{[]string{"run", "--mode", "print"}, "print"},
		{[]string{"run", "--mode", "json", "--mode", "print", "x"}, "print"}, // the last --mode counts
		{[]string{"run", "--mode=print", "--mode=events"}, "events"},
		{[]string{"run", "--json", "--mode", "events"}, "json"}, // conflicting: json wins
		{[]string{"run", "--json", "--json=false", "--mode", "events"}, "events"},
		{[]string{"run", "--", "--json"}, "print"},               // a prompt, not a flag
		{[]string{"run", "--session", "--json", "x"}, "print"},   // --session's value
		{[]string{"run", "-c", "--json", "--max-steps"}, "json"}, // a value missing at the end
		{[]string{"run", "--mode", "text"}, "print"},             // pi's name of print
		{[]string{"run", "--timeout", "nonsense", "--json"}, "json"},
	}
	flags := runFlags()
	for _, c := range cases {
		if m := LenientMode(flags, c.args); string(m) != c.mode {
			t.Errorf("%v: mode %q, want %q", c.args, m, c.mode)
		}
	}
	if f := flags.Lookup("json"); f.Changed || f.Value.String() != "false" {
		t.Errorf("the flag definitions were parsed into: --json %v", f.Value)
	}
}

func TestPickMode(t *testing.T) {
	cases := []struct {
		m         string
		given     bool
		json      bool
		want      mode.Mode
		wantUsage bool
	}{
		{"print", false, false, mode.Print, false},
		{"text", true, false, mode.Print, false},
		{"events", true, false, mode.Events, false},
		{"print", false, true, mode.JSON, false}, // the default --mode with --json
		{"json", true, true, mode.JSON, false},
		{"text", true, true, mode.JSON, true},
		{"events", true, true, mode.JSON, true},
	}
	for _, c := range cases {
		got, err := PickMode(c.m, c.given, c.json)
		if got != c.want || (err != nil) != c.wantUsage {
			t.Errorf("PickMode(%q, %v, %v) = %q, %v; want %q, error %v", c.m, c.given, c.json, got, err, c.want, c.wantUsage)
			continue
		}
		if err == nil {
			continue
		}
		named := c.m
		if named == "text" {
			named = "print" // the message names pi's text as gopi's print
		}
		if want := "--json and --mode " + named + " ask for different outputs: give one of them"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
		var ce *assemble.Error
		if !errors.As(err, &ce) || ce.Class != ai.ClassUsage {
			t.Errorf("%v: not a usage error", err)
		}
	}
}

func TestOutputModeFromParsedFlags(t *testing.T) {
	f := runFlags()
	if err := f.Parse([]string{"--mode", "events", "--json"}); err != nil {
		t.Fatal(err)
	}
	if m, err := OutputMode(f); m != mode.JSON || err == nil {
		t.Fatalf("--mode events --json: %q %v", m, err)
	}
	f = runFlags()
	_ = f.Parse([]string{"--json"})
	if m, err := OutputMode(f); m != mode.JSON || err != nil {
		t.Fatalf("--json: %q %v", m, err)
	}
	f = runFlags()
	_ = f.Parse(nil)
	if m, err := OutputMode(f); m != mode.Print || err != nil {
		t.Fatalf("no flags: %q %v", m, err)
	}
}
