package tools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/sandbox"
)

// TestMain fails the package when its tests leave a goroutine or a file
// descriptor behind.
// The test binary is also the sandbox helper (sandbox_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:], os.Environ(), os.Stderr))
	}
	if dir := os.Getenv("TOOLS_TEST_PARENT"); dir != "" {
		os.Exit(tiedParentMain(dir))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main()))
}

// testEnv is an environment rooted in a fresh temp folder. The test fails
// if it leaves a file descriptor open (a tool's file, pipe or folder).
func testEnv(t *testing.T) *Env {
	t.Helper()
	fdcheck.Check(t)
	dir := tempDir(t)
	return &Env{Cwd: dir, Environ: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}, TempDir: tempDir(t)}
}

// runTool runs one call through a registry, as the loop does.
func runTool(t *testing.T, env *Env, tool Tool, args any) Result {
	t.Helper()
	return runToolCtx(t, context.Background(), env, tool, args, nil)
}

func runToolCtx(t *testing.T, ctx context.Context, env *Env, tool Tool, args any, update func(Result)) Result {
	t.Helper()
	reg, err := NewRegistry(*env, tool)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("marshal args: %v", err)
	}
	return reg.Execute(ctx, ai.ToolCallContent("call-1", tool.Spec().Name, raw), update)
}

// text joins a result's text blocks.
func text(r Result) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == ai.TypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func wantContains(t *testing.T, got string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("output lacks %q:\n%s", s, clip(got))
		}
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:1000] + "\n…\n" + s[len(s)-1000:]
	}
	return s
}
