package cmd

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
)

// Overlapping session reads pause the collector once and restore the
// setting they found, whatever order they end in: at once, or with the
// first collection after them when they resumed it with a higher goal
// (pkg/assemble's resumeGC).
func TestGCPauseOverlapsRestoreTheSetting(t *testing.T) {
	prev := debug.SetGCPercent(77)
	defer debug.SetGCPercent(prev)
	firstIn, secondIn, firstOut := make(chan struct{}), make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = assemble.GCPaused(func() (int, error) {
			close(firstIn)
			<-secondIn
			return 0, nil
		})
		close(firstOut)
	}()
	<-firstIn
	_, _ = assemble.GCPaused(func() (int, error) {
		close(secondIn)
		<-firstOut // the first read ends while this one still runs
		if p := debug.SetGCPercent(-1); p != -1 {
			t.Errorf("collector running during a read: %d", p)
		}
		return 0, nil
	})
	<-done
	for i := 0; i < 100 && gogcPercent() != 77; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond) // the restoring cleanup runs on its own goroutine
	}
	if p := debug.SetGCPercent(prev); p != 77 {
		t.Fatalf("GC percent after overlapping reads and a collection: %d, want 77", p)
	}
}

// gogcPercent reads the collector's setting without changing it.
func gogcPercent() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

type failingReader struct{ err error }

// stalledReader never answers.
type stalledReader struct{}

// A stdin that cannot be read is an input error (exit 2) that says what
// to do; stdin that does not end before --timeout exits 7 naming the flag.
// Neither creates a session.
func TestStdinFailures(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	sys.StdinTTY = false
	sys.Stdin = failingReader{errors.New("is a directory")}
	_, errOut, code := runMain(t, sys, "run", "--provider", "faux")
	if code != exitcode.Usage || !strings.Contains(errOut, "read the prompt from stdin: is a directory (give the prompt as arguments, or pass --no-stdin)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	sys.Stdin = stalledReader{}
	out, errOut, code := runMain(t, sys, "run", "--provider", "faux", "--json", "--timeout", "50ms")
	if code != exitcode.Timeout || !strings.Contains(errOut, "did not end before the deadline (--timeout)") || !strings.Contains(out, `"class":"timeout"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, "context deadline exceeded") { // Go's words, not the user's
		t.Fatalf("stdout %q, stderr %q", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(sys.Getenv("GOPI_HOME"), "sessions")); !os.IsNotExist(err) {
		t.Fatalf("a session folder was made: %v", err)
	}
}

// A key with a line break is refused before anything is sent, naming where
// it came from and never showing it.
func TestAPIKeyWithALineBreakIsRefused(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	defer srv.Close()
	for _, c := range []struct {
		env  []string
		args []string
		from string
	}{
		{[]string{"ANTHROPIC_API_KEY=sk-secret-key\n"}, nil, "ANTHROPIC_API_KEY"},
		{nil, []string{"--api-key", "sk-secret-key\r"}, "--api-key"},
	} {
		sys, _, _ := sysFor(t, t.TempDir(), append(c.env, "ANTHROPIC_BASE_URL="+srv.URL)...)
		args := append([]string{"run", "--provider", "anthropic", "--no-session"}, c.args...)
		_, errOut, code := runMain(t, sys, append(args, "hi")...)
		if code != exitcode.Usage || !strings.Contains(errOut, "the API key in "+c.from+" holds a control character") || strings.Contains(errOut, "sk-secret") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// gopi help <TAB> offers the commands below what is typed so far.
func TestHelpCompletesCommandNames(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	out, _, code := runMain(t, sys, "__complete", "help", "")
	if code != 0 || !strings.Contains(out, "run\t") || !strings.Contains(out, "session\t") {
		t.Fatalf("exit %d: %q", code, out)
	}
	out, _, _ = runMain(t, sys, "__complete", "help", "session", "")
	if !strings.Contains(out, "list\t") || !strings.Contains(out, "tree\t") || strings.Contains(out, "run\t") {
		t.Fatalf("session's commands: %q", out)
	}
}
