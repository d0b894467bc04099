package cmdutil

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The messages of this file say in the user's words what pflag's and
// cobra's errors say in theirs ("strconv.ParseInt: parsing", cobra's
// "accepts 1 arg(s)"): each names the flag or command and what to give
// instead. A path's problem is filekind.Problem's, a JSON document's
// settings.JSONProblem's.

// FlagUsageErr is a flag the parser refused (pflag's error), as a usage
// error naming the flag and what it takes.
func FlagUsageErr(c *cobra.Command, err error) error {
	help := fmt.Sprintf("see %s --help", c.CommandPath())
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		f := bad.GetFlag()
		return usageErr("--%s %q: %s (%s)", f.Name, bad.GetValue(), flagWants(f, bad.GetValue(), errors.Unwrap(bad)), help)
	}
	var none *pflag.ValueRequiredError
	if errors.As(err, &none) {
		return usageErr("--%s needs a value, as in --%s %s (%s)", none.GetFlag().Name, none.GetFlag().Name, flagExample(none.GetFlag()), help)
	}
	return usageErr("%v (%s)", err, help)
}

// flagWants says what a flag of f's type takes, given the value refused.
func flagWants(f *pflag.Flag, value string, cause error) string {
	switch t := f.Value.Type(); {
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "give a whole number, such as " + flagExample(f)
	case strings.HasPrefix(t, "float"):
		return "give a number, such as " + flagExample(f)
	case t == "bool":
		return fmt.Sprintf("give true or false (or --%s alone for true)", f.Name)
	case t == "duration":
		if _, err := time.ParseDuration(value + "s"); err == nil {
			return fmt.Sprintf("a duration needs its unit: give %ss (or m, h, ms), such as 90s or 10m", value)
		}
		return "give a duration with its unit, such as 90s or 10m"
	}
	if cause != nil {
		return cause.Error() // a value of gopi's own, whose message is its own
	}
	return "not a value this flag takes"
}

// flagExample is a value f takes: its default when it has one.
func flagExample(f *pflag.Flag) string {
	switch t := f.Value.Type(); {
	case t == "duration":
		return "90s"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		if f.DefValue != "" && f.DefValue != "0" {
			return f.DefValue
		}
		return "10"
	case strings.HasPrefix(t, "float"):
		return "0.50"
	}
	return "VALUE"
}

var cobraArgCount = regexp.MustCompile(`^accepts (\d+) arg\(s\), received (\d+)$`)

// ArgsUsageErr is an argument count cobra's Args validator refused, as a
// usage error naming the command and the arguments it takes.
func ArgsUsageErr(c *cobra.Command, args []string, err error) error {
	_, want, _ := strings.Cut(c.Use, " ")
	want = strings.TrimSpace(want)
	if m := cobraArgCount.FindStringSubmatch(err.Error()); m != nil && want != "" {
		if len(args) == 0 {
			return usageErr("%s needs its argument: %s %s (see %s --help)", c.CommandPath(), c.CommandPath(), want, c.CommandPath())
		}
		return usageErr("%s takes %s argument(s), %s, not %s (%s): quote a value holding spaces (see %s --help)",
			c.CommandPath(), m[1], want, m[2], strings.Join(QuoteAll(args), " "), c.CommandPath())
	}
	return usageErr("%v (see %s --help)", err, c.CommandPath())
}

func QuoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}
