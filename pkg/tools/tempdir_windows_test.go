package tools

import (
	"testing"

	"gopi/internal/wintest"
)

func tempDir(t *testing.T) string { return wintest.TempDir(t) }
