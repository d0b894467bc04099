package tools

// DefaultShell is the shell the bash tool runs commands in when none is
// chosen: bash (on Windows bash on PATH, else pwsh, else powershell.exe).
// Command hooks on Windows run in it too.
func DefaultShell() string { return findShell() }

// ShellArgs is the command line that runs command in shell: shell -c
// command; PowerShell gets it as -EncodedCommand, which no quoting rule
// of a Windows command line can mangle.
func ShellArgs(shell, command string) []string { return shellArgs(shell, command) }
