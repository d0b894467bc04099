//go:build !windows

package mcp_test

import "gopi/internal/fdcheck"

// fdMain is the package's descriptor leak check (fdcheck reads /proc).
func fdMain() func(int) { return fdcheck.Main() }
