// Package settings is one invocation's settings, on viper: the flags the
// user gave, the GOPI_* variables, the settings files and the defaults,
// in one precedence, and the typed reads of them that pkg/assemble takes.
//
// Guarantees:
//   - Precedence, highest first: a flag given (--thinking), its GOPI_*
//     variable (GOPI_THINKING), the project's .gopi/settings.json files
//     (the nearest folder's over its parents'), $GOPI_HOME/settings.json,
//     then the flag's default. Bare reads no settings file.
//   - One viper instance per Load (viper.New): no watching, no remote
//     store, no AutomaticEnv; only the GOPI_* variables of the keys in
//     Keys are read, through the Getenv given.
//   - Every value knows where it came from: Origin names the flag, the
//     variable, the key and its file(s), or the default, in the words the
//     messages use ("--max-steps", "GOPI_TIMEOUT", `"tools" in FILE`).
//   - A settings file is read as every resource is (a regular file of at
//     most 1 MiB, never a blocking open); a missing one is fine, a
//     malformed one or a value of the wrong JSON type is a usage error
//     (assemble.Usagef, exit 2) naming the file and the key, before
//     anything is sent or written.
//   - Keys gopi does not read are named on the Stderr given, once per
//     file per invocation (Said), with the closest known key.
//   - The package imports no cobra and nothing of cmd: the command hands
//     over its flags as viper.FlagValue, looked up by name (Flags; PFlags
//     wraps a pflag.FlagSet).
//   - Assembly turns the settings and the agent flags that are not keys
//     (AgentOptions) into the one assemble.Settings an Assembly is built
//     from, checked in a fixed order (the run's values, the sandbox, the
//     MCP servers, the model, the sub-agents): which refusal wins when
//     several values are wrong does not change.
package settings
