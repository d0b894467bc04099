//go:build unix

package tools

import "testing"

func tempDir(t *testing.T) string { return t.TempDir() }
