package cmdutil

import (
	"github.com/spf13/cobra"

	"gopi/pkg/session"
)

// CompleteFunc is cobra's completion function of a flag.
type CompleteFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// NoFiles is the directive of a closed list: no file names besides it.
const NoFiles = cobra.ShellCompDirectiveNoFileComp

// FlagString is the value of c's flag name as the command line holds it
// (its default when not given), or "" when c has no such flag.
func FlagString(c *cobra.Command, name string) string {
	if f := c.Flags().Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// Offer makes candidates cobra's completions with their descriptions.
func Offer(cs []session.Candidate) []cobra.Completion {
	out := make([]cobra.Completion, 0, len(cs))
	for _, c := range cs {
		out = append(out, cobra.CompletionWithDesc(c.Value, c.Description))
	}
	return out
}
