package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestFleet runs testdata/fleet/*.txtar: the GitHub Action's script
// (scripts/action.sh) as a runner runs it, the container image
// (scripts/image) built and run with podman, and the fleet examples
// (docs/examples) checked by actionlint and the Kubernetes API's types.
// The scripts get TestScript's commands and fake provider, and:
//
//	$GOPI_SRC      the repository's root
//	$ACTION        scripts/action.sh
//	$FLEET_TOOLS   where scripts/fleet-deps puts actionlint
//	$GOPI_IMAGE_CACHE, GOCACHE, GOMODCACHE...  scripts/image's cache and Go's, this machine's
//	fleetready TOOL...          the tools are installed (else: fails naming scripts/fleet-deps)
//	ghoutput [-env VAR] FILE NAME [WANT]
//	                            a step output in FILE ($GITHUB_OUTPUT's format) equals WANT, or is stored in $VAR
func TestFleet(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// scripts/image builds gopi with this machine's Go caches, not in the
	// scripts' own $HOME.
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var goEnv map[string]string
	if err := json.Unmarshal(out, &goEnv); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	imageCache := os.Getenv("GOPI_IMAGE_CACHE")
	if imageCache == "" {
		imageCache = filepath.Join(home, ".cache", "gopi-ci", "image")
	}
	cmds := maps.Clone(scriptCmds)
	cmds["fleetready"] = cmdFleetReady
	cmds["ghoutput"] = cmdGHOutput
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("..", "testdata", "fleet"),
		Setup: func(env *testscript.Env) error {
			if err := setupScript(env); err != nil {
				return err
			}
			env.Setenv("GOPI_SRC", root)
			env.Setenv("ACTION", filepath.Join(root, "scripts", "action.sh"))
			env.Setenv("FLEET_TOOLS", fleetToolsDir())
			env.Setenv("GOPI_IMAGE_CACHE", imageCache)
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			return nil
		},
		Cmds:                cmds,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// fleetToolsDir is where scripts/fleet-deps builds actionlint:
// $GOPI_FLEET_TOOLS, else ~/.cache/gopi-ci/fleet.
func fleetToolsDir() string {
	if d := os.Getenv("GOPI_FLEET_TOOLS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gopi-ci", "fleet")
}

// cmdFleetReady fails, saying what to run, when a tool the fleet tests
// need is missing: usage "fleetready TOOL...". actionlint and k8scheck
// (built there with its modules cached) are looked for in $FLEET_TOOLS,
// qemu-aarch64 must be registered with binfmt_misc, the others in $PATH.
func cmdFleetReady(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "fleetready")
	var missing []string
	for _, tool := range args {
		if tool == "actionlint" || tool == "k8scheck" {
			if _, err := os.Stat(filepath.Join(ts.Getenv("FLEET_TOOLS"), tool)); err != nil {
				missing = append(missing, filepath.Join(ts.Getenv("FLEET_TOOLS"), tool))
			}
			continue
		}
		if tool == "qemu-aarch64" {
			// arm64 programs run through qemu-user, registered with binfmt_misc
			if _, err := os.Stat("/proc/sys/fs/binfmt_misc/qemu-aarch64"); err != nil {
				missing = append(missing, "qemu-aarch64 in binfmt_misc")
			}
			continue
		}
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		ts.Fatalf("%s missing: run scripts/fleet-deps (as root: apt-get installs jq, podman, buildah, runc, mmdebstrap and qemu-user-static, and registers it with binfmt_misc; actionlint and k8scheck are built into %s)",
			strings.Join(missing, ", "), ts.Getenv("FLEET_TOOLS"))
	}
}

// cmdGHOutput reads a step output from a file in $GITHUB_OUTPUT's format
// (name=value lines, or name<<DELIM, the value's lines, DELIM); the last
// one of that name counts.
func cmdGHOutput(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "ghoutput")
	envVar := ""
	if len(args) > 2 && args[0] == "-env" {
		envVar, args = args[1], args[2:]
	}
	if len(args) < 2 || len(args) > 3 || (envVar == "") == (len(args) == 2) {
		ts.Fatalf("usage: ghoutput [-env VAR] FILE NAME [WANT] (WANT or -env, not both)")
	}
	got, ok, err := ghOutput(ts.ReadFile(args[0]), args[1])
	if err != nil {
		ts.Fatalf("ghoutput %s: %v", args[0], err)
	}
	if !ok {
		ts.Fatalf("ghoutput: no output %s in %s", args[1], args[0])
	}
	if envVar != "" {
		ts.Setenv(envVar, got)
		return
	}
	if got != args[2] {
		ts.Fatalf("ghoutput %s: got %q, want %q", args[1], got, args[2])
	}
}

func ghOutput(text, name string) (value string, found bool, err error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if k, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(k, "=") {
			end := -1
			for j := i + 1; j < len(lines); j++ {
				if lines[j] == delim {
					end = j
					break
				}
			}
			if end < 0 {
				return "", false, fmt.Errorf("output %s: no closing %s", k, delim)
			}
			if k == name {
				value, found = strings.Join(lines[i+1:end], "\n"), true
			}
			i = end
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return "", false, fmt.Errorf("line %d is neither name=value nor name<<DELIM: %q", i+1, line)
		}
		if k == name {
			value, found = v, true
		}
	}
	return value, found, nil
}
