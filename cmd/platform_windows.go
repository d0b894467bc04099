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

// enableVT makes the console speak the VT sequences the chat's line
// editor reads and writes, as a Unix terminal does: keys (arrows, Alt,
// bracketed paste) arrive as escape sequences on stdin (raw already, so
// Ctrl-C is a key), and what goes to stdout is interpreted. It returns
// what gives stdout its mode back; the caller restores stdin's.
func enableVT(in int, out *os.File) (restore func()) {
	var inMode, outMode uint32
	if windows.GetConsoleMode(windows.Handle(in), &inMode) == nil {
		_ = windows.SetConsoleMode(windows.Handle(in), inMode|windows.ENABLE_VIRTUAL_TERMINAL_INPUT)
	}
	h := windows.Handle(out.Fd())
	if windows.GetConsoleMode(h, &outMode) != nil {
		return func() {}
	}
	_ = windows.SetConsoleMode(h, outMode|windows.ENABLE_PROCESSED_OUTPUT|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING)
	return func() { _ = windows.SetConsoleMode(h, outMode) }
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
