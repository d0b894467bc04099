package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A task call without a prompt, or naming an agent the tool does not
// list, is an error result the model can fix; the runner is not called.
func TestTaskRefusesBadCalls(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	task := NewTask(TaskOptions{Agents: []TaskAgent{{Name: "reviewer", Description: "reviews"}},
		Run: func(ctx context.Context, call Call, args TaskArgs) (Result, error) {
			ran.Add(1)
			return TextResult("ok"), nil
		}})
	for args, want := range map[string]string{
		`{"description":"d","prompt":"  "}`:                 "prompt is empty",
		`{"description":"d","prompt":"p","agent":"nobody"}`: `Unknown agent "nobody"`,
	} {
		res, err := task.Run(t.Context(), Call{Args: json.RawMessage(args)})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("%s: %+v %v, want an error result saying %q", args, res, err, want)
		}
	}
	if ran.Load() != 0 {
		t.Fatal("the runner ran for a refused call")
	}
	if spec := task.Spec(); !strings.Contains(spec.Description, "- reviewer: reviews") || !strings.Contains(string(spec.Parameters), `"enum":["reviewer"]`) {
		t.Errorf("spec %s / %s: want the agents listed", spec.Description, spec.Parameters)
	}
}

// At most MaxConcurrency children run at once; the others wait for a slot.
func TestTaskBoundsConcurrency(t *testing.T) {
	t.Parallel()
	var now, most atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	task := NewTask(TaskOptions{MaxConcurrency: 2, Run: func(ctx context.Context, call Call, args TaskArgs) (Result, error) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		started <- struct{}{}
		<-release
		now.Add(-1)
		return TextResult("ok"), nil
	}})
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { _, _ = task.Run(t.Context(), Call{Args: json.RawMessage(`{"description":"d","prompt":"p"}`)}) })
	}
	<-started
	<-started
	close(release)
	wg.Wait()
	if most.Load() != 2 {
		t.Fatalf("%d children ran at once, want 2", most.Load())
	}
}

// A call waiting for a slot gives up when the run is cancelled.
func TestTaskWaitEndsWithTheRun(t *testing.T) {
	t.Parallel()
	block, started := make(chan struct{}), make(chan struct{})
	defer close(block)
	task := NewTask(TaskOptions{MaxConcurrency: 1, Run: func(ctx context.Context, call Call, args TaskArgs) (Result, error) {
		close(started)
		<-block
		return TextResult("ok"), nil
	}})
	go func() {
		_, _ = task.Run(context.Background(), Call{Args: json.RawMessage(`{"description":"d","prompt":"p"}`)})
	}()
	<-started
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan Result)
	go func() {
		res, _ := task.Run(ctx, Call{Args: json.RawMessage(`{"description":"d","prompt":"p"}`)})
		done <- res
	}()
	cancel()
	if res := <-done; !res.IsError || !strings.Contains(res.Content[0].Text, "cancelled") {
		t.Fatalf("%+v: want a result saying the run was cancelled", res)
	}
}

// A child's answer is bounded like every tool result, saying where the
// rest is.
func TestTaskBoundsTheAnswer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line\n", DefaultMaxLines+500)
	task := NewTask(TaskOptions{Run: func(ctx context.Context, call Call, args TaskArgs) (Result, error) { return TextResult(long), nil }})
	res, err := task.Run(t.Context(), Call{Args: json.RawMessage(`{"description":"d","prompt":"p"}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].Text
	if n := strings.Count(text, "line\n"); n != DefaultMaxLines || !strings.Contains(text, "cut to 2000 of its 2500 lines") {
		t.Fatalf("%d lines kept, note %q", n, text[len(text)-150:])
	}
}
