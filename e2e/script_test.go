package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gopi/cmd"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script")

// TestMain makes the test binary double as the gopi binary the scripts
// run (testscript puts it in $PATH as "gopi").
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gopi":            func() { os.Exit(cmd.Main(os.Args[1:], cmd.OSSystem())) },
		"gopi-nolandlock": noLandlockMain, // sandbox_test.go
		"gopi-mcp-server": mcpServerMain,  // mcpserver_test.go
	})
}

// TestScript runs testdata/script/*.txtar: the real binary against an
// in-process fake provider server that speaks the Anthropic and OpenAI
// streaming wire formats. See scriptCmds for the commands scripts get.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "testdata", "script"),
		Setup:               setupScript,
		Cmds:                scriptCmds,
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// defaultSettings keep retries fast and let slow streams stay silent
// for as long as a script needs (SIGINT, --timeout and lock tests).
const defaultSettings = `{"retry": {"maxAttempts": 2, "baseDelayMs": 1, "maxDelayMs": 5, "idleTimeoutMs": 20000}}
`

// setupScript gives each script its own home folders and fake provider:
//
//	$HOME          $WORK/home (nothing touches the real home)
//	$GOPI_HOME     $WORK/gopihome, with defaultSettings
//	$ANTHROPIC_URL the fake server, for --base-url with --provider anthropic
//	$OPENAI_URL    the fake server's /v1, for --provider openai
//	$WORK/requests what the server received: N.json (body), N.head (headers)
func setupScript(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	gopiHome := filepath.Join(env.WorkDir, "gopihome")
	for _, d := range []string{home, gopiHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(gopiHome, "settings.json"), []byte(defaultSettings), 0o644); err != nil {
		return err
	}
	p := newFakeProvider(filepath.Join(env.WorkDir, "requests"))
	env.Values[providerKey{}] = p
	env.Values[procsKey{}] = map[string]*bgProc{}
	env.Values[rpcsKey{}] = map[string]chan error{}
	env.Defer(func() {
		p.srv.Close()
		if left := p.unused(); len(left) > 0 {
			env.T().Fatal("fake provider: replies never requested: ", left)
		}
	})
	env.Setenv("HOME", home)
	env.Setenv("GOPI_HOME", gopiHome)
	env.Setenv("ANTHROPIC_URL", p.srv.URL)
	env.Setenv("OPENAI_URL", p.srv.URL+"/v1")
	setupOTelCol(env)
	if err := setupPi(env); err != nil {
		return err
	}
	return setupMCP(env)
}
