package mode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/structured"
)

// runOn runs prompt on a fresh Runtime over model in mode m and returns
// stdout (its result line decoded), stderr and the Outcome.
func runOn(t *testing.T, model ai.Model, cfg runtime.Config, m Mode, opts Options, prompt string) (string, string, ResultObject, Outcome) {
	t.Helper()
	store := session.NewMemoryStore("/work/proj", session.Options{})
	if cfg.Model.ID == "" {
		cfg.Model = faux.Info
	}
	rt, err := runtime.New(cfg, runtime.Deps{Model: model, Session: store})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	opts.Mode = m
	opts.Header = Header{Header: store.Header()}
	o, err := Run(context.Background(), rt, []ai.Message{ai.UserText(prompt, 1)}, IO{Out: &out, Err: &errOut}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var obj ResultObject
	if m != Print {
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obj); err != nil {
			t.Fatalf("the last line is no result object: %v\n%s", err, out.String())
		}
	}
	return out.String(), errOut.String(), obj, o
}

func texts(msgs []ai.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Role)+": "+m.Text())
	}
	return out
}

// Options.Then are sent one after the other while each run answered
// (stop or length), as one result: every run's messages and steps, the
// last answer's text. A run that failed ends the invocation there.
func TestThenPromptsAreOneResult(t *testing.T) {
	t.Parallel()
	then := []ai.Message{ai.UserText("second", 1), ai.UserText("third", 1)}
	model := faux.New(faux.Text("one"), faux.Response{Text: "two", StopReason: "length"}, faux.Text("three"))
	_, _, obj, o := runOn(t, model, runtime.Config{}, JSON, Options{Then: then, Now: fixedClock()}, "first")
	want := []string{"user: first", "assistant: one", "user: second", "assistant: two", "user: third", "assistant: three"}
	if fmt.Sprint(texts(obj.Messages)) != fmt.Sprint(want) || obj.Text != "three" || obj.Steps != 3 || o.Class != "" || len(model.Requests()) != 3 {
		t.Fatalf("result %+v (%d requests), want messages %q", obj, len(model.Requests()), want)
	}
	if ts := obj.Messages[2].Timestamp; ts != time.Date(2026, 3, 1, 10, 0, 1, 0, time.UTC).UnixMilli() {
		t.Errorf("the second prompt's timestamp %d: want when it was sent", ts)
	}

	failing := faux.New(faux.Response{Error: "upstream exploded", ErrorClass: "server"}, faux.Text("never"))
	_, _, obj, o = runOn(t, failing, runtime.Config{}, JSON, Options{Then: then}, "first")
	if len(failing.Requests()) != 1 || o.Class != ai.ClassServer || obj.Error == nil || obj.Error.Message != "upstream exploded" {
		t.Fatalf("after a failed run: %d requests, result %+v", len(failing.Requests()), obj)
	}
}

func schema(t *testing.T) *structured.Schema {
	t.Helper()
	s, err := structured.NewSchema([]byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An answer the schema refuses is sent back with what is wrong while
// retries are left: the valid answer is the result's structured value
// (print mode writes it alone); out of retries, the run fails with class
// schema and the last answer stays its text.
func TestOutputSchemaCorrections(t *testing.T) {
	t.Parallel()
	model := faux.New(faux.Text("no JSON here"), faux.Text(`{"n": 3}`))
	_, _, obj, o := runOn(t, model, runtime.Config{}, JSON, Options{Schema: schema(t), OutputRetries: 1}, "count")
	if string(obj.Structured) != `{"n":3}` || obj.Error != nil || o.Class != "" || len(model.Requests()) != 2 {
		t.Fatalf("after one correction: %+v, %d requests", obj, len(model.Requests()))
	}
	if last := model.Requests()[1].Messages; last[len(last)-1].Role != ai.RoleUser || last[len(last)-1].Text() == "count" {
		t.Fatalf("the second request does not end with the correction: %q", texts(last))
	}

	model = faux.New(faux.Text(`{"n": 4}`))
	stdout, _, _, _ := runOn(t, model, runtime.Config{}, Print, Options{Schema: schema(t)}, "count")
	if stdout != `{"n":4}`+"\n" {
		t.Fatalf("print mode wrote %q, want the structured answer", stdout)
	}

	model = faux.New(faux.Text("still no JSON"), faux.Text("nor now"))
	_, stderr, obj, o := runOn(t, model, runtime.Config{}, JSON, Options{Schema: schema(t), OutputRetries: 1}, "count")
	if o.Class != ai.ClassSchema || obj.Reason != "schema" || !obj.IsError || obj.Error == nil || obj.Error.Class != ai.ClassSchema ||
		obj.Text != "nor now" || obj.Structured != nil || len(model.Requests()) != 2 || !strings.HasPrefix(stderr, "gopi: schema: ") {
		t.Fatalf("out of retries: %+v, %d requests, stderr %q", obj, len(model.Requests()), stderr)
	}
}

// A prompt the Runtime refuses is the invocation's failure: its error in
// the Outcome and the result line, one line on stderr.
func TestRefusedPromptIsTheResult(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore("/", session.Options{})
	rt, err := runtime.New(runtime.Config{Model: faux.Info}, runtime.Deps{Model: faux.New(faux.Text("x")), Session: store})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	o, err := Run(context.Background(), rt, []ai.Message{ai.UserText("q", 1)}, IO{Out: &out, Err: &errOut}, Options{Mode: JSON})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(o.Err, runtime.ErrDisposed) || !errors.Is(o.Cause(), runtime.ErrDisposed) || o.Class == "" {
		t.Fatalf("outcome %+v", o)
	}
	var obj ResultObject
	if err := json.Unmarshal(out.Bytes(), &obj); err != nil || obj.Error == nil || obj.Error.Message != runtime.ErrDisposed.Error() || obj.Reason != "error" {
		t.Fatalf("result %s (%v)", out.String(), err)
	}
	if errOut.String() != "gopi: "+string(o.Class)+": "+runtime.ErrDisposed.Error()+"\n" {
		t.Fatalf("stderr %q", errOut.String())
	}
}

// A compaction during the run is one stderr line in print and json mode
// (what it summarised and what the summary cost); events mode's events
// say it, so its stderr does not.
func TestCompactionIsOneStderrLineOutsideEvents(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{Print, JSON, Events} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			store := session.NewMemoryStore("/work/proj", session.Options{})
			parent := ""
			for i := range 20 {
				msg := ai.UserText(fmt.Sprintf("old %d %s", i, strings.Repeat("x", 400)), 1)
				if i%2 == 1 {
					msg = ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(strings.Repeat("y", 400))}, StopReason: ai.StopStop}
				}
				e, err := store.Append(t.Context(), session.MessageEntry(parent, msg))
				if err != nil {
					t.Fatal(err)
				}
				parent = e.ID
			}
			info := faux.Info
			info.ContextWindow = 1500
			model := faux.New(faux.Response{Text: "the summary", Usage: &ai.Usage{Input: 900, Output: 100}}, faux.Text("answered"))
			rt, err := runtime.New(runtime.Config{ActiveLeaf: &parent, Model: info, Compaction: runtime.Compaction{ReserveTokens: 100, KeepRecentTokens: 200}},
				runtime.Deps{Model: model, Session: store})
			if err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			o, err := Run(context.Background(), rt, []ai.Message{ai.UserText("now", 2)}, IO{Out: &out, Err: &errOut}, Options{Mode: m, Header: Header{Header: store.Header()}})
			if err != nil || o.Class != "" {
				t.Fatalf("run: %v %s %v", err, o.Class, o.Cause())
			}
			prefix := "gopi: compacted the conversation (it passed the compaction threshold): "
			n := strings.Count(errOut.String(), prefix)
			if m == Events {
				if n != 0 || !strings.Contains(out.String(), `"type":"compaction_end"`) {
					t.Fatalf("events: stderr %q", errOut.String())
				}
				return
			}
			if n != 1 || !strings.Contains(errOut.String(), " tokens summarised, about ") ||
				!strings.Contains(errOut.String(), " left; the summary took 1000 tokens, $0.0000\n") {
				t.Fatalf("stderr %q, want one compaction line", errOut.String())
			}
		})
	}
}

// compactionLine says nothing of a compaction that failed, was
// cancelled or summarised nothing; an overflow is said as the model's.
func TestCompactionLine(t *testing.T) {
	t.Parallel()
	for _, c := range []*loop.CompactionInfo{nil, {}, {Summary: "s", ErrorMessage: "failed"}, {Summary: "s", Aborted: true}} {
		if got := compactionLine(c); got != "" {
			t.Errorf("compactionLine(%+v) = %q", c, got)
		}
	}
	got := compactionLine(&loop.CompactionInfo{Summary: "s", Reason: "overflow", TokensBefore: 5000, EstimatedTokensAfter: 800})
	if want := "gopi: compacted the conversation (the model said it was too long): 5000 tokens summarised, about 800 left; the summary took 0 tokens, $0.0000"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// retryingModel fails its first attempt of every request and answers on
// the second, as an adapter's retry runner streams it.
type retryingModel struct{}

func (retryingModel) Stream(_ context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		first := ai.NewBuilder(faux.Info, 10, yield)
		if !first.Start() || !yield(ai.Event{Type: ai.EventRetryStart, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 4, ErrorMessage: "overloaded (HTTP 529)", Delay: 1500 * time.Millisecond}}) {
			return
		}
		b := ai.NewBuilder(faux.Info, 20, yield)
		if !b.Start() {
			return
		}
		i, ok := b.TextStart()
		if ok && b.TextDelta(i, "the answer") && b.TextEnd(i, "") {
			b.Done(ai.StopStop)
		}
	}
}

// A retried request is written in events mode as pi 1.6 writes it: the
// failed attempt ends as an error message and its run with agent_end
// (willRetry), auto_retry_start follows, then the record of the failed
// attempt (entry_appended), and the next attempt opens a run of its own.
// In every mode the retry is one stderr line.
func TestRetryInPiShape(t *testing.T) {
	t.Parallel()
	out, stderr, _, o := runOn(t, retryingModel{}, runtime.Config{}, Events, Options{}, "hi")
	if o.Class != "" {
		t.Fatalf("class %s: %v", o.Class, o.Cause())
	}
	var types []string
	var failedEnd string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var e struct {
			Type      string `json:"type"`
			WillRetry bool   `json:"willRetry"`
			Message   struct {
				Role         string `json:"role"`
				StopReason   string `json:"stopReason"`
				ErrorMessage string `json:"errorMessage"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		typ := e.Type
		if e.Type == "message_start" || e.Type == "message_end" {
			typ += "(" + e.Message.Role + ")"
		}
		if e.WillRetry {
			typ += "(willRetry)"
		}
		if e.Type == "message_end" && e.Message.StopReason == "error" {
			failedEnd = e.Message.ErrorMessage
		}
		if e.Type != "message_update" {
			types = append(types, typ)
		}
	}
	want := []string{"session", "agent_start", "turn_start", "message_start(user)", "message_end(user)",
		"message_start(assistant)", "message_end(assistant)", "turn_end", "agent_end(willRetry)", "auto_retry_start", "entry_appended",
		"agent_start", "turn_start", "message_start(assistant)", "message_end(assistant)", "turn_end", "agent_end", "agent_settled", "result"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Fatalf("events\n %q\nwant\n %q", types, want)
	}
	retryLine := "gopi: model request failed (overloaded (HTTP 529)); retry 1 of 3 in 1.5s\n"
	if failedEnd != "overloaded (HTTP 529)" || stderr != retryLine {
		t.Fatalf("failed attempt %q, stderr %q", failedEnd, stderr)
	}
	_, stderr, obj, _ := runOn(t, retryingModel{}, runtime.Config{}, JSON, Options{}, "hi")
	if stderr != retryLine || obj.Text != "the answer" {
		t.Fatalf("json: stderr %q, text %q", stderr, obj.Text)
	}
}

// QueueAfter(n) writes an empty queue_update after the n-th user message
// that ends from then on (rpc: a queue a prompt took, as pi says it).
func TestEventStreamQueueAfter(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2} {
		var out bytes.Buffer
		lines := NewLines(&out)
		es := lines.EventStream(faux.Info, time.Now)
		es.QueueAfter(n)
		for i := range 3 {
			m := ai.UserText(fmt.Sprint("u", i), 1)
			es.Event(loop.Event{Type: loop.MessageEnd, Message: &m})
		}
		lines.Close()
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		want := `{"type":"queue_update","schemaVersion":1,"steering":[],"followUp":[]}`
		if len(got) != 4 || got[n] != want || lines.Err() != nil {
			t.Fatalf("QueueAfter(%d): %q", n, got)
		}
	}
}

// A run that did not finish before its deadline is class timeout and
// says so; one the user stopped is aborted; a provider's timeout keeps
// the provider's words.
func TestResultOfATimeout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		res   runtime.Result
		class ai.Class
		msg   string
	}{
		{runtime.Result{Result: loop.Result{Reason: loop.ReasonAborted, Err: fmt.Errorf("run: %w", context.DeadlineExceeded)}}, ai.ClassTimeout, "the run did not finish before its deadline (--timeout)"},
		{runtime.Result{Result: loop.Result{Reason: loop.ReasonAborted, Err: context.Canceled}}, ai.ClassAborted, "the run was interrupted"},
		{runtime.Result{Result: loop.Result{Reason: loop.ReasonAborted}}, ai.ClassAborted, "the run was interrupted"},
		{runtime.Result{Result: loop.Result{Reason: loop.ReasonError, Err: &ai.ProviderError{Class: ai.ClassTimeout, Message: "no answer in 60s"}}}, ai.ClassTimeout, "no answer in 60s"},
		{runtime.Result{Result: loop.Result{Reason: loop.ReasonError, Err: &ai.ProviderError{Class: ai.ClassServer, Status: 503, Message: "unavailable"}}}, ai.ClassServer, "HTTP 503: unavailable"},
		{runtime.Result{Result: loop.Result{Reason: loop.ReasonError, Err: fmt.Errorf("stream: %w", context.DeadlineExceeded)}}, ai.ClassTimeout, "the run did not finish before its deadline (--timeout)"},
	} {
		obj := NewResultObject(&c.res, nil, nil, 1)
		if obj.Error == nil || obj.Error.Class != c.class || obj.Error.Message != c.msg || !obj.IsError {
			t.Errorf("%+v: error %+v, want %s %q", c.res, obj.Error, c.class, c.msg)
		}
	}
}

// Print mode's progress line on a terminal is cleared when the run's
// encoding stops, and stopping twice writes nothing more.
func TestProgressLineIsClearedAtTheEnd(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := newProgress(&buf, time.Now)
	p.event(agent.Event{Event: loop.Event{Type: loop.ToolStart, ToolCallID: "a", ToolName: "bash", Args: json.RawMessage(`{"command":"make"}`)}})
	p.stop()
	end := buf.Len()
	p.stop()
	if !strings.HasSuffix(buf.String(), "\r\033[K") || buf.Len() != end {
		t.Fatalf("progress output %q", buf.String())
	}
}

// steppedModel streams one text delta per step, waiting for the test
// between two.
type steppedModel struct {
	deltas []string
	next   chan struct{} // one receive before every delta after the first
}

func (m steppedModel) Stream(ctx context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(faux.Info, 1, yield)
		if !b.Start() {
			return
		}
		i, ok := b.TextStart()
		for n, d := range m.deltas {
			if n > 0 {
				select {
				case <-m.next:
				case <-ctx.Done():
					b.Fail(ctx, ctx.Err())
					return
				}
			}
			if !ok || !b.TextDelta(i, d) {
				return
			}
		}
		if b.TextEnd(i, "") {
			b.Done(ai.StopStop)
		}
	}
}

// watchWriter keeps what was written; seen waits, bounded, for s.
type watchWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *watchWriter) seen(s string) bool {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		ok := strings.Contains(w.buf.String(), s)
		w.mu.Unlock()
		if ok {
			return true
		}
		time.Sleep(time.Millisecond) // polling the output, not waiting for an event
	}
	return false
}

// Every batch of delta lines is written while the model waits, not only
// the first: a consumer sees each piece of the answer as it streams.
func TestEventsEveryDeltaBatchIsWrittenWhileTheModelWaits(t *testing.T) {
	t.Parallel()
	m := steppedModel{deltas: []string{"first", "second", "third"}, next: make(chan struct{})}
	store := session.NewMemoryStore("/work/proj", session.Options{})
	rt, err := runtime.New(runtime.Config{Model: faux.Info}, runtime.Deps{Model: m, Session: store})
	if err != nil {
		t.Fatal(err)
	}
	out := &watchWriter{}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), rt, []ai.Message{ai.UserText("go", 1)}, IO{Out: out, Err: io.Discard},
			Options{Mode: Events, Header: Header{Header: store.Header()}})
		done <- err
	}()
	for i, d := range m.deltas {
		if i > 0 {
			m.next <- struct{}{}
		}
		if !out.seen(`"delta":"` + d + `"`) {
			close(m.next)
			<-done
			t.Fatalf("delta %q was not written while the model waited", d)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
