package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultNames are the tools offered when the user names none.
var DefaultNames = []string{"read", "write", "edit", "bash"}

// AllNames are every built-in tool, in the order they are offered.
var AllNames = []string{"read", "write", "edit", "bash", "grep", "find", "ls"}

// Options tune the built-in tools. The zero value gives pi's behaviour with
// gopi's default bash timeout.
type Options struct {
	// BashTimeout bounds a bash call that names no timeout; 0 means
	// DefaultBashTimeout.
	BashTimeout time.Duration
	// Shell runs bash commands with "-c"; "" finds bash, then sh.
	Shell string
	// UpdateInterval is the least time between two partial bash updates;
	// 0 means 100 ms.
	UpdateInterval time.Duration
	// MaxSpillBytes bounds one bash spill file; 0 means
	// DefaultMaxSpillBytes, and less than 64 KiB counts as 64 KiB.
	MaxSpillBytes int
}

// New returns the built-in tool called name.
func New(name string, opts Options) (Tool, error) {
	switch name {
	case "read":
		return NewRead(), nil
	case "write":
		return NewWrite(), nil
	case "edit":
		return NewEdit(), nil
	case "bash":
		return NewBash(opts), nil
	case "grep":
		return NewGrep(), nil
	case "find":
		return NewFind(), nil
	case "ls":
		return NewLs(), nil
	}
	return nil, fmt.Errorf("unknown tool %q: choose from %s", name, strings.Join(AllNames, ", "))
}

// Builtins returns the named built-in tools (DefaultNames when none is
// named), each once, in the order given.
func Builtins(opts Options, names ...string) ([]Tool, error) {
	if len(names) == 0 {
		names = DefaultNames
	}
	var out []Tool
	var seen []string
	for _, n := range names {
		if slices.Contains(seen, n) {
			continue
		}
		seen = append(seen, n)
		t, err := New(n, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
