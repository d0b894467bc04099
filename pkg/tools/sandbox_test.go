package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/sandbox"
)

// sandboxEnv is testEnv with a workspace-write guard whose helper is
// $GOPI_SANDBOX_HELPER (a built gopi binary), else this test binary.
func sandboxEnv(t testing.TB, env *Env, rules *sandbox.Rules) {
	helper := os.Getenv("GOPI_SANDBOX_HELPER")
	if helper == "" {
		var err error
		if helper, err = os.Executable(); err != nil {
			t.Fatal(err)
		}
	}
	cwd := sandbox.RealPath(env.Cwd)
	env.Guard = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{cwd}, TempDir: filepath.Join(sandbox.RealPath(env.TempDir), "tmp")}, rules, helper)
	t.Cleanup(env.Guard.Close)
}

// TestSandboxedTools: through the registry, a command's write outside
// the working folder and the write tool's are refused, each an error
// result naming the flag and a denial; writes inside work.
func TestSandboxedTools(t *testing.T) {
	env := testEnv(t)
	outside := t.TempDir()
	rules, err := sandbox.ParseRules(nil, []string{"Bash(rm *)"}, env.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	sandboxEnv(t, env, rules)
	reg, err := NewRegistry(*env, NewBash(Options{}), NewWrite())
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) Result {
		return reg.Execute(context.Background(), ai.Content{ID: "c", Name: name, Arguments: []byte(args)}, nil)
	}
	res := call("bash", `{"command":"echo in > in.txt; echo out > `+outside+`/out.txt"}`)
	if !res.IsError || !strings.Contains(text(res), "operation not permitted by the sandbox: write "+outside+"/out.txt") || !strings.Contains(text(res), "--add-dir "+outside) {
		t.Fatalf("bash: %+v", res)
	}
	res = call("write", `{"path":"`+outside+`/w.txt","content":"x"}`)
	if !res.IsError || !strings.HasPrefix(text(res), "operation not permitted by the sandbox: write "+outside+"/w.txt") {
		t.Fatalf("write: %+v", res)
	}
	res = call("bash", `{"command":"rm in.txt"}`)
	if !res.IsError || !strings.Contains(text(res), "operation not permitted by the permission rules: run rm in.txt (denied by rule Bash(rm *)") {
		t.Fatalf("rm: %+v", res)
	}
	for path, want := range map[string]bool{filepath.Join(env.Cwd, "in.txt"): true, filepath.Join(outside, "out.txt"): false, filepath.Join(outside, "w.txt"): false} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", path, err == nil, want)
		}
	}
	if d := env.Guard.Denials(); len(d) != 3 || d[0].Target != outside+"/out.txt" || d[1].Operation != "write" || d[2].Rule != "denied by rule Bash(rm *)" {
		t.Fatalf("denials: %+v", d)
	}
}

// BenchmarkBashSandbox is the sandbox's cost per bash call: the same
// call with the sandbox off and with workspace-write (a request to the
// run's helper, which starts bash). The helper starts once per run, at
// the first sandboxed command: one call before the timed loop takes that
// cost out (BenchmarkSandboxHelperStart measures it).
// GOPI_SANDBOX_HELPER=path/to/gopi measures the real binary as the helper.
func BenchmarkBashSandbox(b *testing.B) {
	for _, mode := range []string{"off", "workspace-write"} {
		b.Run(mode, func(b *testing.B) {
			tool := NewBash(Options{})
			env := &Env{Cwd: b.TempDir(), Environ: os.Environ(), TempDir: b.TempDir()}
			if mode != "off" {
				sandboxEnv(b, env, nil)
			}
			call := Call{Name: "bash", Args: []byte(`{"command":"true"}`), Env: env, Update: func(Result) {}}
			if res, err := tool.Run(context.Background(), call); err != nil || res.IsError {
				b.Fatal(err, text(res))
			}
			for b.Loop() {
				if res, err := tool.Run(context.Background(), call); err != nil || res.IsError {
					b.Fatal(err, text(res))
				}
			}
		})
	}
}

// BenchmarkSandboxHelperStart is the one-time cost of a run's first
// sandboxed command: the helper's start (a new guard each time) and the
// call.
func BenchmarkSandboxHelperStart(b *testing.B) {
	tool := NewBash(Options{})
	call := Call{Name: "bash", Args: []byte(`{"command":"true"}`), Update: func(Result) {}}
	for b.Loop() {
		env := &Env{Cwd: b.TempDir(), Environ: os.Environ(), TempDir: b.TempDir()}
		sandboxEnv(b, env, nil)
		call.Env = env
		if res, err := tool.Run(context.Background(), call); err != nil || res.IsError {
			b.Fatal(err, text(res))
		}
		env.Guard.Close()
	}
}

// TestSandboxedWriteRace: a folder swapped for a link to a folder outside
// the workspace between the guard's check and the write (as a background
// command may swap it) does not move the write, its temporary file or an
// edit out of the workspace: the call fails and nothing appears outside.
// A link that dangles out of the workspace is not followed out either.
func TestSandboxedWriteRace(t *testing.T) {
	for _, c := range []struct {
		name string
		tool func(replaceOps) Tool
		args map[string]any
	}{
		{"write", func(o replaceOps) Tool { return &WriteTool{ops: o} }, map[string]any{"path": "sub/f.txt", "content": "new line\n"}},
		{"write new", func(o replaceOps) Tool { return &WriteTool{ops: o} }, map[string]any{"path": "sub/new.txt", "content": "new line\n"}},
		{"edit", func(o replaceOps) Tool { return &EditTool{ops: o} }, map[string]any{"path": "sub/f.txt", "oldText": "old", "newText": "new"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			outside := sandbox.RealPath(t.TempDir())
			sandboxEnv(t, env, nil)
			sub := filepath.Join(env.Cwd, "sub")
			os.Mkdir(sub, 0o755)
			os.WriteFile(filepath.Join(sub, "f.txt"), []byte("old line\n"), 0o644)
			os.WriteFile(filepath.Join(outside, "f.txt"), []byte("old line\n"), 0o644)
			swap := func() {
				if err := os.Rename(sub, sub+".moved"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(outside, sub); err != nil {
					t.Fatal(err)
				}
			}
			res := runTool(t, env, c.tool(replaceOps{checked: swap}), c.args)
			if !res.IsError {
				t.Errorf("the call succeeded through the swapped folder: %s", text(res))
			}
			wantFile(t, filepath.Join(outside, "f.txt"), "old line\n")
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 {
				t.Errorf("files appeared outside the workspace: %v", entries)
			}
		})
	}
	t.Run("dangling link", func(t *testing.T) {
		env := testEnv(t)
		outside := sandbox.RealPath(t.TempDir())
		sandboxEnv(t, env, nil)
		os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(env.Cwd, "dangling"))
		res := runTool(t, env, NewWrite(), map[string]any{"path": "dangling", "content": "x"})
		if !res.IsError || !strings.Contains(text(res), "operation not permitted by the sandbox") {
			t.Errorf("write through a link dangling out of the workspace: %s", text(res))
		}
		if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
			t.Error("the write followed a dangling link out of the workspace")
		}
	})
}
