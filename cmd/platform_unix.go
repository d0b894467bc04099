//go:build unix

package cmd

import (
	"errors"
	"os"
	"syscall"
)

// isBrokenPipe reports a write to a pipe whose reader is gone.
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// osEnviron is the process's environment.
func osEnviron() []string { return os.Environ() }

// watchConsole has nothing to watch on Unix: Ctrl-C is SIGINT.
func watchConsole(chan<- os.Signal) (stop func()) { return func() {} }
