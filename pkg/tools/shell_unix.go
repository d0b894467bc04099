//go:build unix

package tools

import (
	"os"
	"os/exec"
)

// findShell prefers bash, as pi: /bin/bash, then bash on PATH, then sh.
func findShell() string {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// shellNote tells the model which shell runs its commands: nothing to add
// where bash is the shell pi's description speaks of.
func shellNote(string) string { return "" }

// shellArgs runs command with shell -c.
func shellArgs(shell, command string) []string { return []string{shell, "-c", command} }
