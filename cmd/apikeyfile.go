package cmd

// apiKeyFileHelp and apiKeyHelp say why the file is the better way: a
// command line is readable by every local user (ps, /proc/PID/cmdline).
const (
	apiKeyHelp     = "API key (default: the provider's environment variable); other local users can read it with ps or in /proc: prefer --api-key-file or the variable"
	apiKeyFileHelp = "read the API key from `FILE` (one trailing newline is dropped); unlike --api-key it does not show in ps"
)
