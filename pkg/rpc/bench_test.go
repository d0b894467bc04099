package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"gopi/internal/rpcdrive"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
)

// benchHost builds no Runtimes: the benchmarks only read and prompt.
type benchHost struct{}

func (benchHost) Open(Want) (Opened, error)          { return Opened{}, errors.New("not here") }
func (benchHost) Models() []ai.Info                  { return []ai.Info{faux.Info} }
func (benchHost) Expand(text string) (string, error) { return text, nil }

func (benchHost) CheckImage(string, string, []byte) error { return nil }
func (benchHost) Commands() []Command                     { return nil }
func (benchHost) SetAutoCompaction(bool, Want) (Opened, error) {
	return Opened{}, errors.New("not here")
}
func (benchHost) AutoCompaction() bool { return true }
func (benchHost) Model(string, string) (ai.Model, ai.Info, error) {
	return nil, ai.Info{}, errors.New("not here")
}
func (benchHost) Export(session.Store, string, string) (string, error) {
	return "", errors.New("not here")
}

// bigStore is a session of n message entries (a conversation of about
// 2 KB per message, as scripts/gensession writes), continued from its last.
func bigStore(tb testing.TB, n int) (session.Store, string) {
	store := session.NewMemoryStore("/work/proj", session.Options{})
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 78)
	leaf := ""
	for i := range n {
		m := ai.UserText(fmt.Sprintf("question %d %s", i, filler), int64(i))
		if i%2 == 1 {
			m = ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(filler)}, StopReason: ai.StopStop, Timestamp: int64(i)}
		}
		e, err := store.Append(context.Background(), session.MessageEntry(leaf, m))
		if err != nil {
			tb.Fatal(err)
		}
		leaf = e.ID
	}
	return store, leaf
}

// rpcSession serves a Server over rt; send writes a command line, next
// reads one record.
type rpcSession struct {
	in   *io.PipeWriter
	recs *rpcdrive.Reader
	done chan error
}

func serveRPC(tb testing.TB, rt *gruntime.Runtime) *rpcSession {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := NewServer(outW, io.Discard, Opened{Runtime: rt, Model: faux.Info}, benchHost{}, Options{})
	s := &rpcSession{in: inW, recs: rpcdrive.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := r.Serve(context.Background(), inR)
		outW.Close()
		s.done <- err
	}()
	return s
}

func (s *rpcSession) send(tb testing.TB, line string) {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		tb.Fatal(err)
	}
}

func (s *rpcSession) next(tb testing.TB) []byte {
	b, err := s.recs.Next()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// close ends stdin and reads to the end.
func (s *rpcSession) close(tb testing.TB) {
	s.in.Close()
	for {
		if _, err := s.recs.Next(); err != nil {
			break
		}
	}
	if err := <-s.done; err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRPCGetState is one get_state round trip (command line in,
// response line out) on an empty and on a 10,000-entry session.
func BenchmarkRPCGetState(b *testing.B) {
	for _, n := range []int{0, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			store, leaf := bigStore(b, n)
			var at *string
			if leaf != "" {
				at = &leaf
			}
			rt, err := gruntime.New(gruntime.Config{ActiveLeaf: at, Model: faux.Info}, gruntime.Deps{Model: faux.New(), Session: store})
			if err != nil {
				b.Fatal(err)
			}
			s := serveRPC(b, rt)
			s.send(b, `{"type":"get_state"}`)
			if got := s.next(b); !bytes.Contains(got, fmt.Appendf(nil, `"messageCount":%d,`, n)) {
				b.Fatalf("get_state = %s", got)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.send(b, `{"id":"1","type":"get_state"}`)
				s.next(b)
			}
			b.StopTimer()
			s.close(b)
		})
	}
}

// BenchmarkRPCEvents is a prompt whose answer streams 10,000 text
// deltas, from the prompt line to agent_settled; bytes are stdout's.
func BenchmarkRPCEvents(b *testing.B) {
	const n = 10000
	var out int64
	b.ReportAllocs()
	for b.Loop() {
		store := session.NewMemoryStore("/work/proj", session.Options{})
		rt, err := gruntime.New(gruntime.Config{Model: faux.Info, Compaction: gruntime.Compaction{Disabled: true}},
			gruntime.Deps{Model: faux.New(faux.Response{Text: strings.Repeat("word ", n), ChunkSize: len("word ")}), Session: store})
		if err != nil {
			b.Fatal(err)
		}
		s := serveRPC(b, rt)
		s.send(b, `{"type":"prompt","message":"go"}`)
		for {
			rec := s.next(b)
			out += int64(len(rec)) + 1
			if bytes.HasPrefix(rec, []byte(`{"type":"agent_settled"`)) {
				break
			}
		}
		s.close(b)
	}
	b.SetBytes(out / int64(b.N))
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
}

// The benchmark's get_state answers on a big session, as the protocol
// has it; stdin's end ends Serve (goleak: nothing left running).
func TestRPCGetStateOnABigSession(t *testing.T) {
	t.Parallel()
	store, leaf := bigStore(t, 2000)
	rt, err := gruntime.New(gruntime.Config{ActiveLeaf: &leaf, Model: faux.Info}, gruntime.Deps{Model: faux.New(), Session: store})
	if err != nil {
		t.Fatal(err)
	}
	s := serveRPC(t, rt)
	s.send(t, `{"id":"a","type":"get_state"}`)
	got := string(s.next(t))
	for _, want := range []string{`{"id":"a","type":"response","schemaVersion":1,"command":"get_state","success":true,"data":{"model":{"id":"faux"`,
		`"isStreaming":false,`, `"messageCount":2000,"pendingMessageCount":0}}`} {
		if !strings.Contains(got, want) {
			t.Fatalf("get_state = %s\nwant %s", got, want)
		}
	}
	s.close(t)
}
