//go:build unix

package invocation

import "os"

// osEnviron is the process's environment.
func osEnviron() []string { return os.Environ() }
