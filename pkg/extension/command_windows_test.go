package extension

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"gopi/internal/wintest"
)

// testShellEnv makes this test binary act as a shell (copied as bash.exe
// or pwsh.exe): it denies every call, naming itself, the command it got
// (from -c or PowerShell's -EncodedCommand) and whether its stdin held
// the hook's input.
const testShellEnv = "GOPI_TEST_HOOK_SHELL"

func init() {
	if os.Getenv(testShellEnv) == "" {
		return
	}
	command := "?"
	args := os.Args[1:]
	for i, a := range args {
		switch {
		case a == "-c" && i+1 < len(args):
			command = args[i+1]
		case a == "-EncodedCommand" && i+1 < len(args):
			raw, _ := base64.StdEncoding.DecodeString(args[i+1])
			u := make([]uint16, len(raw)/2)
			for j := range u {
				u[j] = uint16(raw[2*j]) | uint16(raw[2*j+1])<<8
			}
			script := string(utf16.Decode(u))
			command = "encoded:" + script[strings.LastIndexByte(script, '\n')+1:]
		}
	}
	in, _ := io.ReadAll(os.Stdin)
	fmt.Fprintf(os.Stderr, "%s ran [%s] input has tool_name: %v", filepath.Base(os.Args[0]), command, strings.Contains(string(in), `"tool_name":"bash"`))
	os.Exit(2)
}

// A hook runs in the bash tool's shell: bash on PATH, else PowerShell,
// which gets the command encoded (quotes intact); there is no /bin/sh.
func TestWindowsHookShell(t *testing.T) {
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := wintest.TempDir(t)
	put := func(name string) {
		if err := os.WriteFile(filepath.Join(bin, name), self, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	const command = `.\policy.ps1 "a quoted word"`
	deny := func() string {
		t.Helper()
		env := testEnv(wintest.TempDir(t))
		env.Environ = append(env.Environ, testShellEnv+"=1")
		h := NewHost(Options{})
		if err := h.AddCommandHooks(HooksConfig{BeforeTool: []CommandHook{{Matcher: "bash", Command: command}}}, env); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		res := callTool(h, rec, "bash", `{"command":"dir"}`)
		if !res.IsError || len(rec.ran()) != 0 {
			t.Fatalf("the call was not denied: %q", resultText(res))
		}
		return resultText(res)
	}
	put("pwsh.exe")
	if got, want := deny(), "pwsh.exe ran [encoded:"+command+"] input has tool_name: true"; !strings.Contains(got, want) {
		t.Errorf("with pwsh only: %q, want it to hold %q", got, want)
	}
	put("bash.exe")
	if got, want := deny(), "bash.exe ran ["+command+"] input has tool_name: true"; !strings.Contains(got, want) {
		t.Errorf("with bash and pwsh: %q, want it to hold %q", got, want)
	}
}
