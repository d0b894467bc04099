//go:build unix

package e2e

import (
	"os"
	"syscall"
)

// freeze stops p (SIGSTOP): its sockets accept and nothing answers.
func freeze(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }

func thaw(p *os.Process) { _ = p.Signal(syscall.SIGCONT) }

func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
