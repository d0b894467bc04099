package cmd

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// isBrokenPipe reports a write to a pipe whose reader is gone: Windows
// says ERROR_NO_DATA (the pipe is being closed) or ERROR_BROKEN_PIPE.
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE)
}

// osEnviron is the process's environment, with HOME set to the user's
// profile folder (USERPROFILE) when it is missing, as Git for Windows
// sets it: gopi's files live under HOME on every system.
func osEnviron() []string {
	env := os.Environ()
	if _, ok := os.LookupEnv("HOME"); !ok {
		if p := os.Getenv("USERPROFILE"); p != "" {
			env = append(env, "HOME="+p)
		}
	}
	return env
}
