package sandbox

import (
	"encoding/json"
	"errors"
	"net"
	"os"
)

// Command is one command to start in the sandbox.
type Command struct {
	// Path is the program (absolute); Args its arguments, Args[0] its name.
	Path string
	Args []string
	// Env is the command's whole environment (its TMPDIR is replaced by
	// the private temp folder's); Dir its working folder.
	Env []string
	Dir string
	// Stdin is what the command reads (nil: /dev/null); Stdout and Stderr
	// where it writes (the same file for both keeps the order).
	Stdin, Stdout, Stderr *os.File
}

// ErrHelperEnded is the error of a command whose sandbox helper ended
// before it reported the command's end: the command's fate is unknown.
var ErrHelperEnded = errors.New("the sandbox helper ended before the command did")

// ErrClosed is the error of a command started after the guard was closed.
var ErrClosed = errors.New("the sandbox helper was stopped (the run has ended); the command did not run")

// Exit is how a command ended: its exit code, or the signal that ended
// it (then Code is -1).
type Exit struct {
	Code   int
	Signal os.Signal
}

// Process is a command the sandbox helper started: the leader of a
// process group of its own (Pid is also the group's id).
type Process struct {
	Pid  int
	h    *helper
	conn *net.UnixConn
	dec  *json.Decoder
}
