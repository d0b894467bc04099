package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/exitcode"
)

// A stdout whose reader is already gone (gopi run --mode events | true):
// the first write fails with EPIPE, the run is aborted, nothing more is
// written, and gopi exits 130 with the session consistent.
func TestStdoutReaderGoneAbortsTheRun(t *testing.T) {
	cwd := t.TempDir()
	sys, _, errOut := sysFor(t, cwd)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	stdout := &countingWriter{w: w}
	sys.Stdout = stdout
	file := filepath.Join(cwd, "s.jsonl")
	code := Main([]string{"run", "--mode", "events", "--provider", "faux", "--session", file, "hi"}, *sys)
	if code != exitcode.Interrupted || !strings.Contains(errOut.String(), "stdout was closed by its reader: the run was aborted") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if stdout.writes != 1 {
		t.Fatalf("%d writes to stdout, want 1 (none after the first failed)", stdout.writes)
	}
	// The runtime may give up while the prompt is queued (nothing is
	// written) or abort the run it started (the prompt, then an aborted
	// answer); either way the session is whole.
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	last := lines[len(lines)-1]
	if !bytes.Contains(data, []byte(`"text":"hi"`)) || !bytes.Contains(last, []byte(`"stopReason":"aborted"`)) {
		t.Fatalf("session:\n%s", data)
	}
}

// countingWriter counts the writes that reach w.
type countingWriter struct {
	w      *os.File
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.w.Write(p)
}
