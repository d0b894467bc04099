package cmdutil

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
)

// wordsOf is the custom value of a flag whose refusal is its own message.
type wordsOf struct{}

func (wordsOf) String() string   { return "" }
func (wordsOf) Set(string) error { return errors.New("one of a, b") }
func (wordsOf) Type() string     { return "choice" }

type blank struct{}

func (blank) String() string   { return "" }
func (blank) Set(string) error { return errors.New("") }
func (blank) Type() string     { return "" }

func flagCmd() *cobra.Command {
	root := &cobra.Command{Use: "gopi"}
	c := &cobra.Command{Use: "run [PROMPT]", RunE: func(*cobra.Command, []string) error { return nil }}
	root.AddCommand(c)
	f := c.Flags()
	f.Int("max-steps", 50, "")
	f.Int("zero", 0, "")
	f.Uint("count", 0, "")
	f.Float64("temp", 0, "")
	f.Bool("json", false, "")
	f.Duration("timeout", time.Minute, "")
	f.String("name", "", "")
	f.Var(wordsOf{}, "pick", "")
	f.SetOutput(io.Discard)
	return c
}

func usageMessage(t *testing.T, err error) string {
	t.Helper()
	var ce *assemble.Error
	if !errors.As(err, &ce) || ce.Class != ai.ClassUsage {
		t.Fatalf("%v: not a usage error", err)
	}
	return err.Error()
}

func TestFlagUsageErr(t *testing.T) {
	const help = " (see gopi run --help)"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--max-steps", "ten"}, `--max-steps "ten": give a whole number, such as 50` + help},
		{[]string{"--zero", "x"}, `--zero "x": give a whole number, such as 10` + help},
		{[]string{"--count", "-1"}, `--count "-1": give a whole number, such as 10` + help},
		{[]string{"--temp", "hot"}, `--temp "hot": give a number, such as 0.50` + help},
		{[]string{"--json=maybe"}, `--json "maybe": give true or false (or --json alone for true)` + help},
		{[]string{"--timeout", "90"}, `--timeout "90": a duration needs its unit: give 90s (or m, h, ms), such as 90s or 10m` + help},
		{[]string{"--timeout", "soon"}, `--timeout "soon": give a duration with its unit, such as 90s or 10m` + help},
		{[]string{"--pick", "c"}, `--pick "c": one of a, b` + help},
		{[]string{"--max-steps"}, `--max-steps needs a value, as in --max-steps 50` + help},
		{[]string{"--zero"}, `--zero needs a value, as in --zero 10` + help},
		{[]string{"--count"}, `--count needs a value, as in --count 10` + help},
		{[]string{"--timeout"}, `--timeout needs a value, as in --timeout 90s` + help},
		{[]string{"--temp"}, `--temp needs a value, as in --temp 0.50` + help},
		{[]string{"--name"}, `--name needs a value, as in --name VALUE` + help},
		{[]string{"--bogus"}, `unknown flag: --bogus` + help},
	}
	for _, c := range cases {
		cmd := flagCmd()
		err := cmd.Flags().Parse(c.args)
		if err == nil {
			t.Fatalf("%v parsed", c.args)
		}
		if got := usageMessage(t, FlagUsageErr(cmd, err)); got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.args, got, c.want)
		}
	}
}

func TestFlagWantsWithoutCause(t *testing.T) {
	f := &pflag.Flag{Name: "x", Value: blank{}}
	if got := flagWants(f, "v", nil); got != "not a value this flag takes" {
		t.Errorf("got %q", got)
	}
	if got := flagWants(f, "v", errors.New("its own words")); got != "its own words" {
		t.Errorf("got %q", got)
	}
}

func TestArgsUsageErr(t *testing.T) {
	root := &cobra.Command{Use: "gopi"}
	show := &cobra.Command{Use: "show ID", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }}
	spaced := &cobra.Command{Use: "tree  ID ", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }}
	bare := &cobra.Command{Use: "list", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
	session := &cobra.Command{Use: "session"}
	session.AddCommand(show, spaced, bare)
	root.AddCommand(session)
	cases := []struct {
		c    *cobra.Command
		args []string
		want string
	}{
		{show, nil, "gopi session show needs its argument: gopi session show ID (see gopi session show --help)"},
		{show, []string{"a b", "c"}, `gopi session show takes 1 argument(s), ID, not 2 ("a b" "c"): quote a value holding spaces (see gopi session show --help)`},
		{spaced, nil, "gopi session tree needs its argument: gopi session tree ID (see gopi session tree --help)"},
		{bare, []string{"x"}, `unknown command "x" for "gopi session list" (see gopi session list --help)`},
	}
	for _, c := range cases {
		err := c.c.Args(c.c, c.args)
		if err == nil {
			t.Fatalf("%v accepted", c.args)
		}
		if got := usageMessage(t, ArgsUsageErr(c.c, c.args, err)); got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.args, got, c.want)
		}
	}
}

func TestQuoteAll(t *testing.T) {
	got := QuoteAll([]string{"a", `b "c"`, ""})
	if len(got) != 3 || got[0] != `"a"` || got[1] != `"b \"c\""` || got[2] != `""` {
		t.Errorf("got %q", got)
	}
}
