package tools

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// findShell prefers bash on PATH (Git for Windows, WSL's bash.exe), as pi
// does; without it, PowerShell: pwsh, then Windows PowerShell.
func findShell() string {
	for _, name := range []string{"bash", "pwsh", "powershell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return "powershell.exe"
}

// isPowerShell reports whether shell is pwsh or Windows PowerShell.
func isPowerShell(shell string) bool {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(shell)), ".exe")
	return base == "pwsh" || base == "powershell"
}

// shellNote tells the model which shell runs its commands.
func shellNote(shell string) string {
	if isPowerShell(shell) {
		return " On this system commands run in PowerShell (" + shell + "), not bash: write PowerShell."
	}
	return " On this system commands run in " + shell + "."
}

// shellArgs runs command with shell -c, or encoded in a PowerShell.
func shellArgs(shell, command string) []string {
	if isPowerShell(shell) {
		return powerShellArgs(shell, command)
	}
	return []string{shell, "-c", command}
}
