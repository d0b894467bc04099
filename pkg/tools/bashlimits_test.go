package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBashScrubsSecrets pins that a key the command finds (here printed
// in two writes, the key cut between them) reaches neither the result,
// the partial updates nor the spill file.
func TestBashScrubsSecrets(t *testing.T) {
	const key = "sk-ant-api03-SECRETSECRET"
	env := testEnv(t)
	env.Secrets = NewSecrets(Secret{Name: "ANTHROPIC_API_KEY", Value: key})
	cmd := "printf 'key=sk-ant-api'; sleep 0.2; printf '03-SECRETSECRET\\n'; seq 1 3000; echo " + key
	var mu sync.Mutex
	var updates []string
	res := runToolCtx(t, context.Background(), env, NewBash(Options{UpdateInterval: 1}), map[string]any{"command": cmd},
		func(r Result) {
			mu.Lock()
			updates = append(updates, text(r))
			mu.Unlock()
		})
	if res.IsError {
		t.Fatal(text(res))
	}
	wantContains(t, text(res), "3000\n[REDACTED:ANTHROPIC_API_KEY]\n")
	d := res.Details.(*BashDetails)
	spilled, err := os.ReadFile(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(spilled), "key=[REDACTED:ANTHROPIC_API_KEY]\n1\n") {
		t.Errorf("spill file starts %q", clip(string(spilled))[:60])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 {
		t.Fatal("no partial updates")
	}
	for _, s := range append(updates, text(res), string(spilled)) {
		if strings.Contains(s, "SECRETSECRET") {
			t.Fatalf("the key leaked: %q", clip(s))
		}
	}
}

func TestBashTimeoutValidated(t *testing.T) {
	for _, timeout := range []float64{0, -5, 86400.5, 1e12} {
		env := testEnv(t)
		res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "touch ran", "timeout": timeout})
		if !res.IsError {
			t.Errorf("timeout %v: not an error: %q", timeout, text(res))
		}
		wantContains(t, text(res), "Invalid timeout", "above 0 and at most 86400 (24 hours)", "default of 120 seconds")
		if _, err := os.Stat(filepath.Join(env.Cwd, "ran")); err == nil {
			t.Errorf("timeout %v: the command ran", timeout)
		}
	}
	res := runTool(t, testEnv(t), NewBash(Options{}), map[string]any{"command": "echo ok", "timeout": 86400})
	if res.IsError || text(res) != "ok\n" {
		t.Errorf("the longest timeout was refused: %q", text(res))
	}
	if got := text(runTool(t, testEnv(t), NewBash(Options{}), map[string]any{"command": "true", "timeout": -2.5})); !strings.Contains(got, "Invalid timeout -2.5:") {
		t.Errorf("the value is not named: %q", got)
	}
}

// TestBashSpillBounded pins the spill file's bound: over the limit it
// keeps the head and the tail, says so inside and in the result, and
// never calls itself the full output.
func TestBashSpillBounded(t *testing.T) {
	const limit = 256 << 10
	env := testEnv(t)
	env.TempDir = filepath.Join(t.TempDir(), "run-folder") // made on the first spill
	res := runTool(t, env, NewBash(Options{MaxSpillBytes: limit}), map[string]any{"command": "seq 1 300000"})
	if res.IsError {
		t.Fatal(text(res))
	}
	d := res.Details.(*BashDetails)
	if !d.FullOutputTruncated || filepath.Dir(d.FullOutputPath) != env.TempDir {
		t.Fatalf("details %+v", d)
	}
	got := text(res)
	wantContains(t, got, "299999\n300000\n", "Output truncated to its first ", " and last ", d.FullOutputPath)
	if strings.Contains(got, "Full output") {
		t.Errorf("result calls a cut file the full output: %q", got[len(got)-300:])
	}
	st, err := os.Stat(d.FullOutputPath)
	if err != nil || st.Size() > limit {
		t.Fatalf("spill file: %v, %v (limit %d)", st, err, limit)
	}
	data, _ := os.ReadFile(d.FullOutputPath)
	s := string(data)
	if !strings.HasPrefix(s, "1\n2\n3\n") || !strings.HasSuffix(s, "\n299999\n300000\n") {
		t.Errorf("spill file lacks its head or tail: %q … %q", s[:20], s[len(s)-20:])
	}
	wantContains(t, s, "[Output truncated: ", "The command wrote 1988895 bytes")
	if dir, err := os.Stat(env.TempDir); err != nil || dir.Mode().Perm() != 0o700 {
		t.Errorf("run folder: %v, %v", dir, err)
	}
}

// TestBashSpillUnderLimitWhole: under the limit the file is the whole
// output and says nothing of a cut.
func TestBashSpillUnderLimitWhole(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, NewBash(Options{MaxSpillBytes: 256 << 10}), map[string]any{"command": "seq 1 30000"})
	d := res.Details.(*BashDetails)
	data, err := os.ReadFile(d.FullOutputPath)
	if err != nil || d.FullOutputTruncated || len(data) != 168894 || strings.Contains(string(data), "truncated") {
		t.Fatalf("%d bytes, truncated %v, err %v", len(data), d.FullOutputTruncated, err)
	}
	wantContains(t, text(res), "Full output: "+d.FullOutputPath)
}
