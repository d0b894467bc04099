package cmdutil

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
)

func agentFlags() *pflag.FlagSet {
	f := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.Bool("no-mcp", false, "")
	f.String("mcp-config", "", "")
	f.Bool("no-tools", false, "")
	f.StringSlice("tools", nil, "")
	f.Bool("no-session", false, "")
	f.String("session", "", "")
	f.String("leaf", "", "")
	f.BoolP("continue", "c", false, "")
	f.String("fork", "", "")
	f.String("session-id", "", "")
	return f
}

func TestCheckConflicts(t *testing.T) {
	cases := []struct {
		args []string
		want string // the message's start; "" for none
	}{
		{nil, ""},
		{[]string{"--no-mcp", "--mcp-config", "m.json"}, "--mcp-config and --no-mcp contradict each other: give --mcp-config FILE to start its servers, or --no-mcp for none"},
		{[]string{"--no-mcp=false", "--mcp-config", "m.json"}, ""},
		{[]string{"--no-mcp"}, ""},
		{[]string{"--mcp-config", "m.json"}, ""},
		{[]string{"--no-tools", "--tools", "read"}, "--tools and --no-tools contradict each other: give --tools NAMES for some tools, or --no-tools for none"},
		{[]string{"--no-tools=false", "--tools", "read"}, ""},
		{[]string{"--no-session", "--session", "s"}, "--no-session cannot be combined with --session, --leaf or --continue: --no-session keeps nothing on disk and so resumes nothing"},
		{[]string{"--no-session", "--leaf", "e"}, "--no-session cannot be combined"},
		{[]string{"--no-session", "-c"}, "--no-session cannot be combined"},
		{[]string{"--no-session", "-c=false"}, ""},
		{[]string{"--fork", "f", "--session", "s"}, "--fork cannot be combined with --session, --continue or --no-session: --fork starts a new session from a copy of the one it names"},
		{[]string{"--fork", "f", "-c"}, "--fork cannot be combined"},
		{[]string{"--fork", "f"}, ""},
		{[]string{"--fork", "f", "--leaf", "e"}, ""},
		{[]string{"--session-id", "i", "--session", "s"}, "--session-id cannot be combined with --session or --continue: --session-id names the session to continue (from its newest entry) or to start"},
		{[]string{"--session-id", "i", "-c"}, "--session-id cannot be combined"},
		{[]string{"--session-id", "i", "--leaf", "e"}, ""},
		{[]string{"--session", "s", "--leaf", "e", "-c"}, "--leaf and -c both choose the entry to continue from: give --leaf ID for that entry, or -c for the newest"},
		{[]string{"--session", "s", "--leaf", "e"}, ""},
		{[]string{"--session", "s", "-c"}, ""},
		{[]string{"--leaf", "e", "-c"}, ""},
	}
	for _, c := range cases {
		f := agentFlags()
		if err := f.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := CheckConflicts(f)
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.args, err)
			}
			continue
		}
		var ce *assemble.Error
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &ce) || ce.Class != ai.ClassUsage {
			t.Errorf("%v: %v, want a usage error %q", c.args, err, c.want)
		}
	}
	// A command without some of the flags conflicts in none of them.
	f := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Bool("no-mcp", true, "")
	if err := CheckConflicts(f); err != nil {
		t.Errorf("missing flags: %v", err)
	}
}
