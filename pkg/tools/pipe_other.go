//go:build !linux

package tools

import "os"

// pipeEmpty cannot count a pipe's pending bytes here: the reader stops
// after the drain wait, as if the pipe were empty.
func pipeEmpty(*os.File) bool { return true }
