package cmd

import "runtime/debug"

// cmdVersion is gopi's version as MCP servers are told it.
func cmdVersion() string {
	info, ok := debug.ReadBuildInfo()
	return readBuildVersion(info, ok).Version
}
