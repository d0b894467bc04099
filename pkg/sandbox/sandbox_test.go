package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
	"gopi/pkg/sandbox"
)

// TestMain makes the test binary the sandbox helper when started as one
// (and the parent TestHelperDiesWithItsParent kills), and fails the
// package when its tests leave a goroutine or a file descriptor behind.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:], os.Environ(), os.Stderr))
	}
	if dir := os.Getenv("SANDBOX_TEST_PARENT"); dir != "" {
		os.Exit(parentMain(dir))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main()))
}

func TestRules(t *testing.T) {
	cwd := "/work/proj"
	r, err := sandbox.ParseRules(
		[]string{"Bash(git *)", "Bash(npm run test:*)", "Edit(src/**)"},
		[]string{"Bash(git push*)", "Read(/etc/**)", "read(**/.env)", "Write"},
		cwd)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, arg string
		denied    bool
		rule      string
	}{
		{"bash", "git status", false, ""},
		{"bash", "git log 2>&1 | git grep x", false, ""},
		{"bash", "npm run test", false, ""},
		{"bash", "npm run test -- -v", false, ""},
		{"bash", "npm run testing", true, "not allowed"},
		{"bash", "git push origin main", true, "denied by rule Bash(git push*)"},
		{"bash", "git status && git push", true, "denied by rule Bash(git push*)"},
		{"bash", "git status; rm -rf /", true, `no allow rule for bash matches "rm -rf /"`},
		{"bash", "git status 'a;b'", false, ""},
		{"bash", "git log $(rm -rf /)", true, "command substitution"},
		{"bash", "ls", true, "not allowed"},
		{"Read", "/etc/passwd", true, "denied by rule Read(/etc/**)"},
		{"read", "/etc", true, "denied by rule Read(/etc/**)"},
		{"read", "/work/proj/.env", true, "denied by rule read(**/.env)"},
		{"read", "/work/proj/main.go", false, ""},
		{"write", "/work/proj/anything", true, "denied by rule Write"},
		{"edit", "/work/proj/src/a/b.go", false, ""},
		{"edit", "/work/proj/main.go", true, "no allow rule for edit"},
		{"ls", "/", false, ""},
	} {
		rule, denied := r.Check(c.tool, c.arg, "")
		if denied != c.denied || !strings.Contains(rule, c.rule) {
			t.Errorf("%s %q: denied %v by %q, want %v by %q", c.tool, c.arg, denied, rule, c.denied, c.rule)
		}
	}
	if _, err := sandbox.ParseRules(nil, []string{"Bash(git *"}, cwd); err == nil || !strings.Contains(err.Error(), "must end with ')'") {
		t.Fatalf("malformed: %v", err)
	}
	var none *sandbox.Rules
	if _, denied := none.Check("bash", "rm -rf /", ""); denied {
		t.Fatal("no rules denied a call")
	}
}

func TestCheckProbe(t *testing.T) {
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite}
	if err := sandbox.Check(p, func() (int, error) { return 3, nil }); err == nil || !strings.Contains(err.Error(), "ABI 4 or later for its TCP network rules") {
		t.Fatalf("ABI 3 without network: %v", err)
	}
	p.Network = true
	if err := sandbox.Check(p, func() (int, error) { return 3, nil }); err != nil {
		t.Fatalf("ABI 3 with network allowed: %v", err)
	}
	if err := sandbox.Check(p, func() (int, error) { return 2, nil }); err == nil {
		t.Fatal("ABI 2 accepted")
	}
	missing := errors.New("no landlock")
	if err := sandbox.Check(p, func() (int, error) { return 0, missing }); !errors.Is(err, missing) {
		t.Fatalf("probe error: %v", err)
	}
	called := false
	if err := sandbox.Check(sandbox.Policy{Mode: sandbox.Off}, func() (int, error) { called = true; return 0, missing }); err != nil || called {
		t.Fatalf("off: %v, probed %v", err, called)
	}
}

func TestPermitWrites(t *testing.T) {
	dir := sandbox.RealPath(t.TempDir())
	ws, out, tmp := filepath.Join(dir, "ws"), filepath.Join(dir, "out"), filepath.Join(dir, "tmp")
	for _, d := range []string{ws, out, filepath.Join(ws, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	g := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{ws}, TempDir: tmp}, nil, "")
	for _, c := range []struct {
		path string
		want string // "" allowed, else part of the error
	}{
		{filepath.Join(ws, "a/b/new.txt"), ""},
		{filepath.Join(tmp, "x"), ""},
		{filepath.Join(out, "x"), "operation not permitted by the sandbox: write " + filepath.Join(out, "x") + " (sandbox workspace-write: writable are only " + ws},
		{filepath.Join(ws, "link/x"), "(" + filepath.Join(out, "x") + ")"},
		{filepath.Join(ws, "../out/y"), "allowed by --add-dir " + out},
		{filepath.Join(ws, ".git/config"), ".git is read-only; allowed by settings \"sandbox\": {\"allowGit\": true}"},
	} {
		err := g.Permit("write", sandbox.OpWrite, c.path)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("write %s: %v, want %q", c.path, err, c.want)
		}
	}
	if err := g.Permit("read", sandbox.OpRead, "/etc/passwd"); err != nil {
		t.Fatalf("read refused: %v", err)
	}
	if n := len(g.Denials()); n != 4 {
		t.Fatalf("%d denials, want 4: %+v", n, g.Denials())
	}
	ro := sandbox.New(sandbox.Policy{Mode: sandbox.ReadOnly, Writable: []string{ws}, TempDir: tmp}, nil, "")
	if err := ro.Permit("edit", sandbox.OpWrite, filepath.Join(ws, "a.txt")); err == nil || !strings.Contains(err.Error(), "sandbox read-only") {
		t.Fatalf("read-only let a write through: %v", err)
	}
	var off *sandbox.Guard
	if err := off.Permit("write", sandbox.OpWrite, "/etc/x"); err != nil || off.Mode() != sandbox.Off || len(off.Denials()) != 0 {
		t.Fatal("a nil guard refused something")
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"read-only", "workspace-write", "off"} {
		if m, err := sandbox.ParseMode(s); err != nil || string(m) != s {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := sandbox.ParseMode("on"); err == nil || !strings.Contains(err.Error(), "use read-only, workspace-write or off") {
		t.Fatalf("on: %v", err)
	}
}

// A call the rules ask about is refused where nobody is asked, saying
// how to allow it; where the person was asked and did not allow it, the
// refusal says so, for the model and the person to read.
func TestAskedRefusalSaysThePersonWasAsked(t *testing.T) {
	cwd := t.TempDir()
	rules, err := sandbox.ParseRules(nil, nil, cwd)
	if err != nil {
		t.Fatal(err)
	}
	if err := rules.AddAsk([]string{"Bash(rm *)"}, cwd); err != nil {
		t.Fatal(err)
	}
	g := sandbox.New(sandbox.Policy{Mode: sandbox.Off}, rules, "")
	err = g.Permit("bash", sandbox.OpCommand, "rm x")
	if err == nil || !strings.Contains(err.Error(), "allowed by an answer where gopi asks") || strings.Contains(err.Error(), "was asked") {
		t.Fatalf("nobody asked: %v", err)
	}
	var asked []sandbox.Denial
	g.SetAsk(func(d sandbox.Denial) bool { asked = append(asked, d); return false })
	err = g.Permit("bash", sandbox.OpCommand, "rm x")
	var de *sandbox.DeniedError
	if !errors.As(err, &de) || !de.Asked || len(asked) != 1 ||
		err.Error() != "operation not permitted by the permission rules: run rm x (asks by rule Bash(rm *); the user was asked and did not allow it)" {
		t.Fatalf("asked, refused: %v (asked %d times)", err, len(asked))
	}
	g.SetAsk(func(sandbox.Denial) bool { return true })
	if err := g.Permit("bash", sandbox.OpCommand, "rm x"); err != nil {
		t.Fatalf("asked, allowed: %v", err)
	}
	if n := len(g.Denials()); n != 2 {
		t.Fatalf("%d denials recorded, want the two refusals", n)
	}
}
