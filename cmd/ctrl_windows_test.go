package cmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"gopi/internal/interrupt"
	"gopi/internal/wintest"
	"gopi/pkg/exitcode"
)

// fakeCtrl is a console whose control events the test sends: Wine has
// no console, so GenerateConsoleCtrlEvent cannot reach gopi there.
type fakeCtrl struct {
	mu     sync.Mutex
	handle func(uint32) bool
}

func (f *fakeCtrl) Watch(h func(uint32) bool) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handle = h
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.handle = nil
	}, nil
}

// send delivers event as the console would; false: nobody took it.
func (f *fakeCtrl) send(event uint32) bool {
	f.mu.Lock()
	h := f.handle
	f.mu.Unlock()
	return h != nil && h(event)
}

func useCtrl(t *testing.T) *fakeCtrl {
	f := &fakeCtrl{}
	t.Cleanup(interrupt.SetConsole(f))
	return f
}

// slowAnthropic starts an answer and sends nothing more until the client
// goes away; requests says when each request arrived.
func slowAnthropic(t *testing.T) (*httptest.Server, chan struct{}) {
	requests := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n"))
		w.(http.Flusher).Flush()
		requests <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, requests
}

// Ctrl-C and Ctrl-Break in the console take gopi run's abort path: the
// run is aborted mid-stream, the session keeps the prompt and the
// aborted answer, and gopi exits 130.
func TestWindowsCtrlEventsAbortTheRun(t *testing.T) {
	for _, ev := range []struct {
		name  string
		event uint32
	}{{"Ctrl-C", windows.CTRL_C_EVENT}, {"Ctrl-Break", windows.CTRL_BREAK_EVENT}} {
		t.Run(ev.name, func(t *testing.T) {
			ctrl := useCtrl(t)
			srv, requests := slowAnthropic(t)
			home, cwd := wintest.TempDir(t), wintest.TempDir(t)
			var out, errOut bytes.Buffer
			sys := System{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, StdinTTY: true,
				Environ: []string{"HOME=" + home, "GOPI_HOME=" + filepath.Join(home, ".gopi"),
					"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + srv.URL},
				Getwd: func() (string, error) { return cwd, nil }, Now: time.Now, Signals: true,
				Exit: func(code int) { t.Errorf("exited at once (%d) after one event", code) }}
			file := filepath.Join(cwd, "s.jsonl")
			code := make(chan int, 1)
			go func() {
				code <- Main([]string{"run", "--provider", "anthropic", "--session", file, "a long task"}, sys)
			}()
			select {
			case <-requests:
			case c := <-code:
				t.Fatalf("exit %d before any request; stderr %q", c, errOut.String())
			}
			if !ctrl.send(ev.event) {
				t.Fatalf("%s was not taken", ev.name)
			}
			if c := <-code; c != exitcode.Interrupted {
				t.Fatalf("exit %d, want %d; stderr %q", c, exitcode.Interrupted, errOut.String())
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte(`"text":"a long task"`)) || !bytes.Contains(data, []byte(`"stopReason":"aborted"`)) {
				t.Fatalf("session:\n%s", data)
			}
			if ctrl.send(ev.event) {
				t.Errorf("%s still taken after the run", ev.name)
			}
		})
	}
}
