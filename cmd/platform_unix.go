//go:build unix

package cmd

import "os"

// osEnviron is the process's environment.
func osEnviron() []string { return os.Environ() }
