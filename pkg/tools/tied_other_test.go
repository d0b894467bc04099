//go:build !linux

package tools

// tiedParentMain exists on Linux only (tied_linux_test.go).
func tiedParentMain(string) int { return 2 }
