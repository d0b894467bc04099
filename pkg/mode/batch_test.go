package mode

import (
	"bytes"
	"context"
	"encoding/json"
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
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// Events mode writes delta lines in batches: every line is still the
// event's own encoding (loop.Encoder, pi 1.6's shape), in order, for a
// long answer of thinking, text and tool arguments whose deltas hold
// escapes, non-ASCII text, U+2028 and characters cut in two.
func TestEventsBatchedLinesAreEachEventsJSON(t *testing.T) {
	t.Parallel()
	word := "é \"q\" \\ <b>\u2028 🙂 tab\t "
	args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": strings.Repeat(word, 500)})
	responses := []faux.Response{
		{Thinking: strings.Repeat(word, 800), Text: strings.Repeat(word, 3000), ChunkSize: 7,
			ToolCalls: []faux.ToolCall{{ID: "w1", Name: "write", Arguments: args}}},
		faux.Text("done"),
	}
	write := toolstest.Func{Name: "write", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.TextResult("written"), nil
	}}
	store := session.NewMemoryStore("/work/proj", session.Options{})
	rt, err := gruntime.New(gruntime.Config{Model: faux.Info, Compaction: gruntime.Compaction{Disabled: true}},
		gruntime.Deps{Model: faux.New(responses...), Session: store, Tools: toolstest.Registry(t, write)})
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	deltas := 0
	var enc loop.Encoder
	rt.Control().Subscribe(func(e agent.Event) {
		b, err := enc.Append(nil, e.Event)
		b = withVersion(b, 0)
		if err != nil {
			t.Error(err)
		}
		want = append(want, b)
		if isDelta(e.Event) {
			deltas++
		}
	}, agent.Except(agent.RunEnd))
	var out bytes.Buffer
	o, err := Run(context.Background(), rt, []ai.Message{ai.UserText("go", 1)}, IO{Out: &out, Err: io.Discard},
		Options{Mode: Events, Header: Header{Header: store.Header()}})
	if err != nil || o.Err != nil || o.Class != "" {
		t.Fatalf("run: %v %v %s", err, o.Err, o.Class)
	}
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	want = append(want, []byte(`{"type":"agent_settled","schemaVersion":1,"aborted":false}`))
	if len(lines) != len(want)+2 || deltas < 1000 {
		t.Fatalf("%d lines for %d events (%d deltas), want the header, the events, agent_settled and the result", len(lines), len(want)-1, deltas)
	}
	for i, w := range want {
		// An answer's message_start is pi's: its first block and
		// "pending" (eventStream.release), the rest as the encoder's.
		if bytes.HasPrefix(w, []byte(`{"type":"message_start","schemaVersion":1,"message":{"role":"assistant"`)) {
			if !bytes.Contains(lines[i+1], []byte(`"stopReason":"pending"`)) {
				t.Fatalf("line %d: %s, want stopReason pending", i+1, lines[i+1])
			}
			continue
		}
		if !bytes.Equal(lines[i+1], w) {
			t.Fatalf("line %d:\n got %s\nwant %s", i+1, lines[i+1], w)
		}
	}
	if !bytes.HasPrefix(lines[len(lines)-1], []byte(`{"type":"result"`)) {
		t.Errorf("last line %s, want the result object", lines[len(lines)-1])
	}
}

// heldModel streams one delta, then waits for release before ending its
// answer.
type heldModel struct{ release chan struct{} }

func (m heldModel) Stream(ctx context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(faux.Info, 1, yield)
		if !b.Start() {
			return
		}
		i, ok := b.TextStart()
		if !ok || !b.TextDelta(i, "first words") {
			return
		}
		select {
		case <-m.release:
		case <-ctx.Done():
			b.Fail(ctx, ctx.Err())
			return
		}
		if b.TextDelta(i, ", then more") && b.TextEnd(i, "") {
			b.Done(ai.StopStop)
		}
	}
}

// signalWriter reports on seen when what it was written holds want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// A delta line does not wait for the model's next event: a consumer
// sees what was streamed while the model is still thinking of more.
func TestEventsDeltaIsWrittenWhileTheModelWaits(t *testing.T) {
	t.Parallel()
	m := heldModel{release: make(chan struct{})}
	store := session.NewMemoryStore("/work/proj", session.Options{})
	rt, err := gruntime.New(gruntime.Config{Model: faux.Info, Compaction: gruntime.Compaction{Disabled: true}},
		gruntime.Deps{Model: m, Session: store})
	if err != nil {
		t.Fatal(err)
	}
	out := &signalWriter{want: `"delta":"first words"}}` + "\n", seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), rt, []ai.Message{ai.UserText("go", 1)}, IO{Out: out, Err: io.Discard},
			Options{Mode: Events, Header: Header{Header: store.Header()}})
		done <- err
	}()
	select {
	case <-out.seen:
	case <-time.After(time.Minute):
		close(m.release)
		<-done
		t.Fatal("the first delta was not written while the model waited")
	}
	close(m.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := out.buf.String()
	if !strings.Contains(got, `"delta":", then more"`) || !strings.Contains(got, `"text":"first words, then more"`) {
		t.Errorf("output:\n%s", got)
	}
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %q is not one JSON value", line)
		}
	}
}
