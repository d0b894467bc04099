package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBash(t *testing.T) {
	t.Setenv("GOPI_PROCESS_ONLY", "leaked")
	env := testEnv(t)
	env.Environ = append(env.Environ, "KEEP=yes", "OPENAI_API_KEY=sk-1", "ANTHROPIC_API_KEY=sk-2",
		"GOPI_API_KEY=sk-3", "my_api_key=sk-4", "ANTHROPIC_AUTH_TOKEN=tok", "GITHUB_TOKEN=gh")
	tests := []struct {
		name    string
		args    map[string]any
		env     *Env
		wantErr bool
		exact   string
		want    []string
	}{
		{name: "echo", args: map[string]any{"command": "echo hello"}, exact: "hello\n"},
		{name: "no output", args: map[string]any{"command": "true"}, exact: "(no output)"},
		{name: "merged in order", args: map[string]any{"command": "echo out; echo err >&2; echo out2"}, exact: "out\nerr\nout2\n"},
		{name: "exit code", args: map[string]any{"command": "echo bad; exit 3"}, wantErr: true, exact: "bad\n\n\nCommand exited with code 3"},
		{name: "cwd", args: map[string]any{"command": "pwd"}, exact: env.Cwd + "\n"},
		{name: "stdin closed", args: map[string]any{"command": "cat; echo done"}, exact: "done\n"},
		{name: "env given only", args: map[string]any{"command": "echo ${GOPI_PROCESS_ONLY:-none} $KEEP $GITHUB_TOKEN"}, exact: "none yes gh\n"},
		{name: "secrets stripped", args: map[string]any{"command": "env | grep -ci -e api_key -e auth_token || true"}, exact: "0\n"},
		{name: "nil environ is empty", env: &Env{Cwd: env.Cwd}, args: map[string]any{"command": "echo ${GOPI_PROCESS_ONLY:-none}"}, exact: "none\n"},
		{name: "killed by signal", args: map[string]any{"command": "kill -9 $$"}, wantErr: true, want: []string{"Command was killed by signal killed"}},
		{name: "invalid utf8", args: map[string]any{"command": `printf 'a\377b'`}, want: []string{"a\uFFFDb", "not valid UTF-8"}},
		{name: "missing cwd", env: &Env{Cwd: "/nonexistent/dir"}, args: map[string]any{"command": "true"}, wantErr: true,
			want: []string{"Working directory does not exist: /nonexistent/dir"}},
		{name: "timeout arg", args: map[string]any{"command": "sleep 10", "timeout": 0.3}, wantErr: true,
			exact: "(no output)\n\nCommand timed out after 0.3 seconds"},
		{name: "wait on background", args: map[string]any{"command": "(sleep 100) & wait", "timeout": 0.3}, wantErr: true,
			want: []string{"Command timed out after 0.3 seconds"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := env
			if tc.env != nil {
				e = tc.env
			}
			res := runTool(t, e, NewBash(Options{}), tc.args)
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v: %q", res.IsError, text(res))
			}
			if tc.exact != "" && text(res) != tc.exact {
				t.Errorf("got %q, want %q", text(res), tc.exact)
			}
			wantContains(t, text(res), tc.want...)
			if res.Details != nil { // pi's details are absent, not null, when nothing was cut
				t.Errorf("details %#v for a short output", res.Details)
			}
		})
	}
}

func TestBashDefaultTimeoutOption(t *testing.T) {
	env := testEnv(t)
	tool := NewBash(Options{BashTimeout: 300 * time.Millisecond})
	res := runTool(t, env, tool, map[string]any{"command": "sleep 5 & sleep 10"})
	if !res.IsError || !strings.HasSuffix(text(res), "Command timed out after 0.3 seconds") {
		t.Fatalf("got %q", text(res))
	}
	if !strings.Contains(string(tool.Spec().Parameters), "default 0.3") {
		t.Errorf("schema does not name the default: %s", tool.Spec().Parameters)
	}
}

func TestBashCancel(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the output is seen: the first update comes with it.
	res := runToolCtx(t, ctx, env, NewBash(Options{}), map[string]any{"command": "echo hi; sleep 300 & sleep 300"},
		func(r Result) {
			if strings.Contains(text(r), "hi") {
				cancel()
			}
		})
	if !res.IsError || text(res) != "hi\n\n\nCommand aborted" {
		t.Fatalf("got %q", text(res))
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if res := runToolCtx(t, done, env, NewBash(Options{}), map[string]any{"command": "touch never"}, nil); !res.IsError {
		t.Errorf("ran with a cancelled context")
	}
	if _, err := os.Stat(env.Cwd + "/never"); err == nil {
		t.Errorf("command ran after cancellation")
	}
}

func TestBashTruncation(t *testing.T) {
	tests := []struct {
		name, command string
		want          []string
		fullLines     int
	}{
		{"lines", "seq 1 5000", []string{"4999\n5000\n\n[Showing lines 3001-5000 of 5000. Full output: "}, 5000},
		{"bytes", "for i in $(seq 1 3000); do printf '%099d\\n' $i; done", []string{"[Showing lines 2489-3000 of 3000 (50.0KB limit). Full output: "}, 3000},
		{"one long line", "head -c 300000 /dev/zero | tr '\\0' x", []string{"[Showing last 50.0KB of line 1 (line is 293.0KB). Full output: "}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			res := runTool(t, env, NewBash(Options{}), map[string]any{"command": tc.command})
			if res.IsError {
				t.Fatal(text(res))
			}
			wantContains(t, text(res), tc.want...)
			d, ok := res.Details.(*BashDetails)
			if !ok || d.FullOutputPath == "" || d.Truncation == nil {
				t.Fatalf("details %#v", res.Details)
			}
			if !strings.HasPrefix(d.FullOutputPath, env.TempDir) {
				t.Errorf("spill file %s not in %s", d.FullOutputPath, env.TempDir)
			}
			st, err := os.Stat(d.FullOutputPath)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("spill file %v %v", st, err)
			}
			full, _ := os.ReadFile(d.FullOutputPath)
			want, _ := exec.Command("bash", "-c", tc.command).Output()
			if string(full) != string(want) {
				t.Errorf("spill file has %d bytes, want %d", len(full), len(want))
			}
			if len(text(res)) > DefaultMaxBytes+500 {
				t.Errorf("result is %d bytes", len(text(res)))
			}
		})
	}
}

func TestBashUpdatesThrottled(t *testing.T) {
	env := testEnv(t)
	var mu sync.Mutex
	var updates []string
	cmd := "for i in $(seq 1 20); do echo tick $i; sleep 0.02; done"
	const interval = 100 * time.Millisecond
	start := time.Now()
	res := runToolCtx(t, context.Background(), env, NewBash(Options{UpdateInterval: interval}),
		map[string]any{"command": cmd}, func(r Result) {
			mu.Lock()
			updates = append(updates, text(r))
			mu.Unlock()
		})
	took := time.Since(start)
	if res.IsError || !strings.HasSuffix(text(res), "tick 20\n") {
		t.Fatalf("got %q", text(res))
	}
	mu.Lock()
	defer mu.Unlock()
	// At most one update per interval, the first at once: a bound that
	// holds however slowly the machine runs the loop.
	if most := int(took/interval) + 1; len(updates) == 0 || len(updates) > most {
		t.Errorf("%d updates for 20 chunks in %v (at most %d)", len(updates), took, most)
	}
	if len(updates) > 0 && !strings.HasPrefix(updates[0], "tick 1\n") {
		t.Errorf("first update %q", updates[0])
	}
}

// TestBashUpdatesOncePerInterval pins the throttle without a clock: with
// an interval longer than any test, the first output gives the one
// partial result and the rest give none.
func TestBashUpdatesOncePerInterval(t *testing.T) {
	env := testEnv(t)
	var updates []string
	cmd := "echo tick 1; for i in $(seq 2 5); do sleep 0.01; echo tick $i; done"
	res := runToolCtx(t, context.Background(), env, NewBash(Options{UpdateInterval: time.Hour}),
		map[string]any{"command": cmd}, func(r Result) { updates = append(updates, text(r)) })
	if res.IsError || text(res) != "tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n" {
		t.Fatalf("got %q", text(res))
	}
	if len(updates) != 1 || !strings.HasPrefix(updates[0], "tick 1\n") {
		t.Errorf("updates %q, want one starting with the first line", updates)
	}
}

// TestBashOutputEnds pins the edges of the stream: an output of one
// byte, and the end of an output held back in case a key followed, which
// the end of the stream lets through.
func TestBashOutputEnds(t *testing.T) {
	env := testEnv(t)
	env.Secrets = NewSecrets(Secret{Name: "ANTHROPIC_API_KEY", Value: "sk-ant-api03-SECRETSECRET"})
	for cmd, want := range map[string]string{
		"printf x":                              "x",
		"printf 'tail sk-ant-api03'":            "tail sk-ant-api03",
		"printf 'a\nsk-ant-api03-SECRETSECRET'": "a\n[REDACTED:ANTHROPIC_API_KEY]",
	} {
		if res := runTool(t, env, NewBash(Options{}), map[string]any{"command": cmd}); res.IsError || text(res) != want {
			t.Errorf("%s: got %v %q, want %q", cmd, res.IsError, text(res), want)
		}
	}
}

// TestBashStartFailure pins the answer when the shell cannot be started:
// an error naming the cause, and nothing left open.
func TestBashStartFailure(t *testing.T) {
	env := testEnv(t)
	shell := filepath.Join(env.Cwd, "no-such-shell")
	res := runTool(t, env, NewBash(Options{Shell: shell}), map[string]any{"command": "true"})
	if want := "Cannot run the command: fork/exec " + shell + ": no such file or directory"; !res.IsError || text(res) != want {
		t.Fatalf("got %v %q, want %q", res.IsError, text(res), want)
	}
}

func TestBashShellFallback(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, NewBash(Options{Shell: "/bin/sh"}), map[string]any{"command": "echo $0"})
	if res.IsError || text(res) != "/bin/sh\n" {
		t.Fatalf("got %q", text(res))
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "ANTHROPIC_API_KEY": true, "GOPI_API_KEY": true, "x_api_key": true,
		"ANTHROPIC_AUTH_TOKEN": true, "PATH": false, "API_KEYS_DIR": false, "GITHUB_TOKEN": false,
		"ANTHROPIC_OAUTH_TOKEN": true, "CLAUDE_CODE_OAUTH_TOKEN": true, "API_KEY": true, "anthropic_auth_token": true,
		"MY_API_KEY_FILE": false, "OAUTH_TOKEN": false,
	} {
		if got := isSecretName(name); got != want {
			t.Errorf("isSecretName(%s) = %v", name, got)
		}
	}
}

func BenchmarkBashSpawn(b *testing.B) {
	b.Run("bare-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("bash", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bash-tool", func(b *testing.B) {
		tool := NewBash(Options{})
		env := &Env{Cwd: b.TempDir(), Environ: os.Environ(), TempDir: b.TempDir()}
		call := Call{Name: "bash", Args: []byte(`{"command":"true"}`), Env: env, Update: func(Result) {}}
		for b.Loop() {
			if res, err := tool.Run(context.Background(), call); err != nil || res.IsError {
				b.Fatal(err, text(res))
			}
		}
	})
}
