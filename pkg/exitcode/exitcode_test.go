package exitcode

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

func TestOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		class ai.Class
		err   error
		want  int
	}{
		{"", nil, 0},
		{ai.ClassUsage, nil, 2},
		{ai.ClassAuth, nil, 4},
		{ai.ClassQuota, nil, 4},
		{ai.ClassRateLimit, nil, 3},
		{ai.ClassOverloaded, nil, 3},
		{ai.ClassServer, nil, 3},
		{ai.ClassNetwork, nil, 3},
		{ai.ClassContextOverflow, nil, 3},
		{ai.ClassTimeout, context.DeadlineExceeded, 7},
		{ai.ClassTimeout, &ai.ProviderError{Class: ai.ClassTimeout, Message: "stream stalled"}, 3},
		{ai.ClassAborted, context.Canceled, 130},
		{ai.ClassMaxSteps, nil, 6},
		{ai.ClassBudgetTokens, nil, 8},
		{ai.ClassBudgetUSD, nil, 8},
		{ai.ClassSchema, nil, 9},
		{ai.ClassRequired, nil, 10},
		{ai.ClassSession, nil, 5},
		{ai.ClassInternal, errors.New("bug"), 1},
		{"no_such_class", nil, 1},
	}
	for _, c := range cases {
		if got := Of(c.class, c.err); got != c.want {
			t.Errorf("Of(%q, %v) = %d, want %d", c.class, c.err, got, c.want)
		}
	}
}

// A model run's table lists every code, each once.
func TestRunTableListsEveryCode(t *testing.T) {
	t.Parallel()
	table, own := Table("run")
	if !own {
		t.Fatal("run has no table of its own")
	}
	for _, code := range []int{OK, Internal, Usage, Provider, Auth, Session, MaxSteps, Timeout, Budget, Schema, Required, Interrupted} {
		if n := strings.Count(table, fmt.Sprintf("\n  %-4d ", code)); n != 1 {
			t.Errorf("code %d: listed %d times in\n%s", code, n, table)
		}
	}
	if other, own := Table("completion bash"); own || !strings.HasPrefix(other, "Exit codes:") {
		t.Errorf("a command without a table got %q (own %v)", other, own)
	}
}
