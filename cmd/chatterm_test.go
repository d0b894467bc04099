package cmd

import (
	"strings"
	"testing"
)

func TestChatRefusesWithoutATerminal(t *testing.T) {
	sys, stdout, stderr := sysFor(t, t.TempDir())
	sys.Stdin, sys.StdinTTY = strings.NewReader("hello\n"), false
	if code := Main([]string{"chat", "--provider", "faux"}, *sys); code != ExitUsage {
		t.Fatalf("exit %d", code)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "gopi run") {
		t.Fatalf("stdout %q, stderr %q", stdout, stderr)
	}
}

func TestBareGopiWithoutATerminalPrintsHelp(t *testing.T) {
	sys, stdout, _ := sysFor(t, t.TempDir())
	if code := Main(nil, *sys); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout.String(), "chat") || !strings.Contains(stdout.String(), "run") {
		t.Fatalf("help: %q", stdout)
	}
}
