//go:build unix

package tools

import "syscall"

// oDirectory makes an open of a folder fail on anything else.
const oDirectory = syscall.O_DIRECTORY
