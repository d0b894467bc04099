package cmd_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// mcpServersDir is where the npm MCP servers the scripts start are
// installed (.ci/run installs them): $GOPI_MCP_SERVERS, else
// ~/.cache/gopi-ci/mcp. The scripts get its node_modules/.bin as
// $MCP_SERVERS, to put in their PATH.
func mcpServersDir() string {
	if d := os.Getenv("GOPI_MCP_SERVERS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gopi-ci", "mcp")
}

// setupMCP sets $MCP_SERVERS; a script that starts the servers fails
// with what to run when they are not installed.
func setupMCP(env *testscript.Env) error {
	bin := filepath.Join(mcpServersDir(), "node_modules", ".bin")
	env.Setenv("MCP_SERVERS", bin)
	if _, err := os.Stat(filepath.Join(bin, "mcp-server-everything")); err != nil {
		env.Setenv("MCP_MISSING", fmt.Sprintf("the npm MCP servers are not installed in %s: run .ci/run, or npm install --prefix %s @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem", mcpServersDir(), mcpServersDir()))
	}
	return nil
}

// cmdMCPReady fails, saying what to install, when the npm MCP servers
// are missing: usage "mcpready".
func cmdMCPReady(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "mcpready")
	if msg := ts.Getenv("MCP_MISSING"); msg != "" {
		ts.Fatalf("%s", msg)
	}
}
