package cmdutil

import (
	"github.com/spf13/pflag"
)

// CheckConflicts refuses flags that ask for opposite things, before
// anything is read, sent or written: gopi does not pick one of them
// silently. A flag set to its "off" value (--no-tools=false) asks for
// nothing and conflicts with nothing. (--json with another --mode is
// OutputMode's; --api-key with --api-key-file is settings.APIKey's.)
func CheckConflicts(f *pflag.FlagSet) error {
	on := func(name string) bool {
		fl := f.Lookup(name)
		if fl == nil || !fl.Changed {
			return false
		}
		if fl.Value.Type() == "bool" {
			return fl.Value.String() == "true"
		}
		return true
	}
	switch {
	case on("no-mcp") && on("mcp-config"):
		return usageErr("--mcp-config and --no-mcp contradict each other: give --mcp-config FILE to start its servers, or --no-mcp for none")
	case on("no-tools") && on("tools"):
		return usageErr("--tools and --no-tools contradict each other: give --tools NAMES for some tools, or --no-tools for none")
	case on("no-session") && (on("session") || on("leaf") || on("continue")):
		return usageErr("--no-session cannot be combined with --session, --leaf or --continue: " +
			"--no-session keeps nothing on disk and so resumes nothing")
	case on("fork") && (on("session") || on("continue") || on("no-session")):
		return usageErr("--fork cannot be combined with --session, --continue or --no-session: " +
			"--fork starts a new session from a copy of the one it names")
	case on("session-id") && (on("session") || on("continue")):
		return usageErr("--session-id cannot be combined with --session or --continue: " +
			"--session-id names the session to continue (from its newest entry) or to start")
	case on("session") && on("leaf") && on("continue"):
		return usageErr("--leaf and -c both choose the entry to continue from: give --leaf ID for that entry, or -c for the newest")
	}
	return nil
}
