//go:build unix

package session

import "testing"

func tempDir(t *testing.T) string { return t.TempDir() }
