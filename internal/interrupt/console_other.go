//go:build !windows

package interrupt

import "os"

// watchConsole has nothing to watch outside Windows: Ctrl-C is SIGINT.
func watchConsole(chan<- os.Signal) (stop func()) { return func() {} }
