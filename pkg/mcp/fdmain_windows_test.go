package mcp_test

// fdMain checks no descriptors on Windows: fdcheck reads /proc, which
// Windows has not; goleak still checks goroutines.
func fdMain() func(int) { return func(int) {} }
