//go:build unix

package invocation

import (
	"os"
	"strings"
	"testing"

	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
)

// A stdout whose reader went away before the result line was written is
// said on stderr, and the run exits as interrupted.
func TestRunSaysAStdoutNobodyReads(t *testing.T) {
	p, _, _, errOut := proc(t, fauxSettings(t, `{"responses":[{"text":"done"}]}`))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	p.Stdout = w
	err = run(p, RunOptions{Mode: mode.JSON}, "hi")
	if codeOf(t, err) != exitcode.Interrupted || !strings.Contains(errOut.String(), "gopi: stdout was closed by its reader: its end was not written") {
		t.Fatalf("code %d stderr %q", codeOf(t, err), errOut)
	}
}
