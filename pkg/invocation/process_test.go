package invocation

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopi/internal/interrupt"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
	"gopi/pkg/loop"
	"gopi/pkg/settings"
	"gopi/pkg/tools"

	"github.com/spf13/pflag"
)

// proc is an in-process Process in fresh folders: stdout and stderr are
// buffers, GOPI_HOME a temporary folder, the working folder cwd. The
// user's settings.json holds settings when not "".
func proc(t *testing.T, settings string, env ...string) (p *Process, cwd string, out, errOut *bytes.Buffer) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	gopiHome := filepath.Join(home, ".gopi")
	if settings != "" {
		write(t, filepath.Join(gopiHome, "settings.json"), settings)
	}
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	p = &Process{Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut, StdinTTY: true,
		Environ: append([]string{"HOME=" + home, "GOPI_HOME=" + gopiHome}, env...),
		Getwd:   func() (string, error) { return cwd, nil }, Now: time.Now, Hosts: &interrupt.Kills{}}
	return p, cwd, out, errOut
}

// flags are the agent flags' defaults, as a command hands them over.
func flags() settings.Flags {
	f := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.Int("max-steps", loop.DefaultMaxSteps, "")
	f.StringSlice("tools", tools.DefaultNames, "")
	f.String("fsync", "always", "")
	f.Int("max-prompt-bytes", settings.DefaultMaxPromptBytes, "")
	f.Duration("timeout", 0, "")
	return settings.PFlags(f)
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestGetenvTakesTheLastSettingOfTheVariableItself(t *testing.T) {
	p := &Process{Environ: []string{"Z=first", "A=1", "AB=2", "A=3", "B", "C="}}
	for key, want := range map[string]string{"Z": "first", "A": "3", "AB": "2", "B": "", "C": "", "D": ""} {
		if got := p.Getenv(key); got != want {
			t.Errorf("Getenv(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestCwdIsTheFlagsOrTheProcesss(t *testing.T) {
	p, cwd, _, _ := proc(t, "")
	if got, err := p.Cwd(""); err != nil || got != cwd {
		t.Errorf("Cwd(\"\") = %q, %v; want %q", got, err, cwd)
	}
	other := t.TempDir()
	if got, err := p.Cwd(other); err != nil || got != other {
		t.Errorf("Cwd(%q) = %q, %v", other, got, err)
	}
	file := filepath.Join(cwd, "f")
	write(t, file, "x")
	if _, err := p.Cwd(file); ClassOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "--cwd "+file) {
		t.Errorf("a file as --cwd: %v", err)
	}
}

func TestEnvHandsAssembleTheProcess(t *testing.T) {
	probe := func() (int, error) { return 4, nil }
	p, _, _, errOut := proc(t, "")
	p.SandboxProbe = probe
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := p.Env(ctx)
	if env.Context != ctx || env.Stderr != errOut || len(env.Environ) != len(p.Environ) || env.Now == nil || env.Version == "" {
		t.Errorf("env %+v", env)
	}
	if abi, _ := env.SandboxProbe(); abi != 4 {
		t.Errorf("probe gives %d", abi)
	}
}

func TestInterruptsKillTheOpenHosts(t *testing.T) {
	p, _, out, errOut := proc(t, "")
	p.Signals, p.Exit = true, func(int) {}
	cfg := p.Interrupts()
	if !cfg.Signals || cfg.Stdout != out || cfg.Stderr != errOut || cfg.Exit == nil || cfg.Kill == nil {
		t.Fatalf("config %+v", cfg)
	}
	k := &killer{}
	p.Hosts.Add(k)
	cfg.Kill()
	if !k.killed {
		t.Error("a forced exit left an open host running")
	}
	ctx, stop := p.Trap(context.Background())
	stop()
	<-ctx.Done() // the trap's context ends with the trap
}

type killer struct{ killed bool }

func (k *killer) Kill() { k.killed = true }

// Unknown keys are named once per file however often the settings are
// read in one invocation; --bare reads no file.
func TestLoadSettingsNamesUnknownKeysOnce(t *testing.T) {
	p, cwd, _, errOut := proc(t, `{"maxSteps":4,"maxStep":5}`)
	for range 2 {
		cfg, err := p.LoadSettings(nil, cwd, false)
		if err != nil || cfg.String("maxSteps") != "4" {
			t.Fatalf("maxSteps %q, %v", cfg.String("maxSteps"), err)
		}
	}
	if n := strings.Count(errOut.String(), `unknown key "maxStep"`); n != 1 {
		t.Errorf("the unknown key named %d times: %q", n, errOut)
	}
	cfg, err := p.LoadSettings(nil, cwd, true)
	if err != nil || cfg.String("maxSteps") == "4" {
		t.Errorf("bare read the settings file: %q, %v", cfg.String("maxSteps"), err)
	}
}

func TestSettingsReadTheKeyFileInTheWorkingFolder(t *testing.T) {
	p, cwd, _, _ := proc(t, `{"provider":"faux"}`)
	write(t, filepath.Join(cwd, "key"), "sk-file\n")
	cfg, ao, err := p.Settings(Agent{APIKeyFile: "key", Flags: flags()})
	if err != nil || ao.APIKey != "sk-file" || ao.Cwd != cwd || cfg.String("provider") != "faux" {
		t.Fatalf("key %q cwd %q provider %q: %v", ao.APIKey, ao.Cwd, cfg.String("provider"), err)
	}
	if _, _, err := p.Settings(Agent{APIKey: "a", APIKeyFile: "key"}); ClassOf(err) != ai.ClassUsage {
		t.Errorf("both keys: %v", err)
	}
	if _, _, err := p.Settings(Agent{CwdFlag: filepath.Join(cwd, "missing")}); ClassOf(err) != ai.ClassUsage {
		t.Errorf("a missing --cwd: %v", err)
	}
	if _, err := p.AssemblySettings(Agent{CwdFlag: filepath.Join(cwd, "missing")}); ClassOf(err) != ai.ClassUsage {
		t.Errorf("a missing --cwd: %v", err)
	}
	set, err := p.AssemblySettings(Agent{Flags: flags()})
	if err != nil || set.Model.Provider != "faux" || set.Cwd != cwd {
		t.Errorf("settings %+v: %v", set.Model, err)
	}
}

func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want ai.Class
	}{
		{&assemble.Error{Class: ai.ClassRequired, Err: errors.New("x")}, ai.ClassRequired},
		{assemble.Usagef("bad"), ai.ClassUsage},
		{context.Canceled, ai.ClassAborted},
		{errors.New("plain"), ai.ClassOf(errors.New("plain"))},
	} {
		if got := ClassOf(c.err); got != c.want {
			t.Errorf("ClassOf(%v) = %s, want %s", c.err, got, c.want)
		}
	}
	if got := (&Exit{Code: exitcode.Usage}).Error(); got != "exit 2" {
		t.Errorf("Exit says %q", got)
	}
}
