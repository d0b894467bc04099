package cmd

import (
	"os"
	"strings"
	"testing"

	"gopi/pkg/exitcode"
)

func TestChatRefusesWithoutATerminal(t *testing.T) {
	sys, stdout, stderr := sysFor(t, t.TempDir())
	sys.Stdin, sys.StdinTTY = strings.NewReader("hello\n"), false
	if code := Main([]string{"chat", "--provider", "faux"}, *sys); code != exitcode.Usage {
		t.Fatalf("exit %d", code)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "gopi run") {
		t.Fatalf("stdout %q, stderr %q", stdout, stderr)
	}
}

func TestBareGopiWithoutATerminalPrintsHelp(t *testing.T) {
	sys, stdout, _ := sysFor(t, t.TempDir())
	if code := Main(nil, *sys); code != exitcode.OK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout.String(), "chat") || !strings.Contains(stdout.String(), "run") {
		t.Fatalf("help: %q", stdout)
	}
}

// A terminal the chat cannot use is a usage error saying so: streams that
// are no files, or files that refuse raw mode (pipes).
func TestChatTerminalItCannotUseIsAUsageError(t *testing.T) {
	sys, _, stderr := sysFor(t, t.TempDir())
	sys.StdoutTTY = true
	if code := Main([]string{"chat", "--provider", "faux", "--no-session"}, *sys); code != exitcode.Usage ||
		!strings.Contains(stderr.String(), "gopi chat needs a terminal on stdin and stdout; use gopi run") {
		t.Fatalf("streams: exit %d, stderr %q", code, stderr)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	sys, _, stderr = sysFor(t, t.TempDir())
	sys.Stdin, sys.Stdout, sys.StdoutTTY = inR, outW, true
	if code := Main([]string{"chat", "--provider", "faux", "--no-session"}, *sys); code != exitcode.Usage ||
		!strings.Contains(stderr.String(), "gopi chat: cannot set up the terminal: ") || !strings.Contains(stderr.String(), "; use gopi run") {
		t.Fatalf("pipes: exit %d, stderr %q", code, stderr)
	}
}
