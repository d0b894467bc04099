package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
)

func TestClassOf(t *testing.T) {
	cases := []struct {
		err  error
		want ai.Class
	}{
		{assemble.Usagef("bad %s", "x"), ai.ClassUsage},
		{fmt.Errorf("wrapped: %w", &assemble.Error{Class: ai.ClassSession, Err: errors.New("locked")}), ai.ClassSession},
		{fmt.Errorf("stopped: %w", context.Canceled), ai.ClassAborted},
		{errors.New(`unknown command "x" for "gopi"`), ai.ClassUsage},
		{errors.New("an unknown command x"), ai.ClassOf(errors.New("an unknown command x"))},
		{context.DeadlineExceeded, ai.ClassTimeout},
	}
	for _, c := range cases {
		if got := ClassOf(c.err); got != c.want {
			t.Errorf("ClassOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// UsageArgs makes every command's argument count a usage error, below the
// root too, and leaves a command without a check without one.
func TestUsageArgs(t *testing.T) {
	root := &cobra.Command{Use: "gopi", Args: cobra.MaximumNArgs(1)}
	session := &cobra.Command{Use: "session"}
	show := &cobra.Command{Use: "show ID", Args: cobra.ExactArgs(1)}
	session.AddCommand(show)
	root.AddCommand(session)
	UsageArgs(root)
	if session.Args != nil {
		t.Error("a command without an argument check got one")
	}
	for _, c := range []*cobra.Command{root, show} {
		err := c.Args(c, []string{"a", "b"})
		var ce *assemble.Error
		if !errors.As(err, &ce) || ce.Class != ai.ClassUsage || !strings.Contains(err.Error(), "(see "+c.CommandPath()+" --help)") {
			t.Errorf("%s: %v", c.CommandPath(), err)
		}
		if err := c.Args(c, []string{"a"}); err != nil {
			t.Errorf("%s: one argument refused: %v", c.CommandPath(), err)
		}
	}
}

func TestExitHelp(t *testing.T) {
	root := &cobra.Command{Use: "gopi", RunE: func(*cobra.Command, []string) error { return nil }}
	chat := &cobra.Command{Use: "chat", RunE: func(*cobra.Command, []string) error { return nil }}
	list := &cobra.Command{Use: "list", RunE: func(*cobra.Command, []string) error { return nil }}
	session := &cobra.Command{Use: "session"}
	session.AddCommand(list)
	root.AddCommand(chat, session)
	SetExitHelp(root)
	for _, c := range []struct {
		cmd  *cobra.Command
		path string
	}{{root, ""}, {chat, "chat"}, {list, "session list"}} {
		want, _ := exitcode.Table(c.path)
		if got := ExitCodesOf(c.cmd); got != want || !strings.HasPrefix(got, "Exit codes:") {
			t.Errorf("%q: table %q, want %q", c.path, got, want)
		}
		var out bytes.Buffer
		c.cmd.SetOut(&out)
		if err := c.cmd.Usage(); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out.String(), "\n"+want+"\n") {
			t.Errorf("%q: the usage does not end with its table:\n%s", c.path, out.String())
		}
	}
	chatTable, _ := exitcode.Table("chat")
	runTable, _ := exitcode.Table("run")
	if chatTable == runTable {
		t.Fatal("the test needs two different tables")
	}
}
