package cmdutil

import (
	"testing"

	"github.com/spf13/cobra"

	"gopi/pkg/session"
)

func TestFlagString(t *testing.T) {
	c := &cobra.Command{Use: "run"}
	c.Flags().String("cwd", "here", "")
	c.Flags().String("provider", "", "")
	if err := c.Flags().Parse([]string{"--provider", "faux"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"cwd": "here", "provider": "faux", "missing": ""} {
		if got := FlagString(c, name); got != want {
			t.Errorf("--%s: %q, want %q", name, got, want)
		}
	}
}

func TestOffer(t *testing.T) {
	got := Offer([]session.Candidate{{Value: "a1", Description: "first"}, {Value: "b2"}})
	want := []cobra.Completion{cobra.CompletionWithDesc("a1", "first"), cobra.CompletionWithDesc("b2", "")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Offer(nil); got == nil || len(got) != 0 {
		t.Errorf("no candidates: %#v", got)
	}
	if NoFiles != cobra.ShellCompDirectiveNoFileComp {
		t.Error("NoFiles is not cobra's closed list")
	}
}
