package mode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// outputSchema is docs/schema/output.schema.json, the documented shape of
// every line of json and events output.
func outputSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", "output.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every line of every golden file of json and events output is valid
// against the published schema, and carries the schema's version.
func TestGoldenOutputMatchesTheSchema(t *testing.T) {
	t.Parallel()
	sch := outputSchema(t)
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "mode_*.golden"))
	lines := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(raw, []byte("\n")) {
			if !bytes.HasPrefix(line, []byte("{")) {
				continue // print mode's text, stderr
			}
			lines++
			var v any
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatalf("%s:%d: %v", f, i+1, err)
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s:%d: %v\n%s", filepath.Base(f), i+1, err, line)
			}
		}
	}
	if lines < 50 {
		t.Fatalf("only %d JSON lines in %d golden files", lines, len(files))
	}
}

// The schema refuses what it must: a line without its version, an
// unknown type, a result without messages, a delta without its text.
func TestOutputSchemaRefusesWrongLines(t *testing.T) {
	t.Parallel()
	sch := outputSchema(t)
	for _, line := range []string{
		`{"type":"agent_start"}`,
		`{"type":"agent_begin","schemaVersion":1}`,
		`{"type":"agent_start","schemaVersion":2}`,
		`{"type":"result","schemaVersion":1,"reason":"stop","isError":false,"text":"","steps":1,"files":[],"usage":{},"durationMs":1}`,
		`{"type":"message_update","schemaVersion":1,"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"text_delta","contentIndex":0}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("accepted %s", line)
		}
	}
}

func TestWithVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"type":"turn_start"}`:                   `{"type":"turn_start","schemaVersion":1}`,
		`{"type":"agent_settled","aborted":true}`: `{"type":"agent_settled","schemaVersion":1,"aborted":true}`,
		`{"other":1}`:                             `{"other":1}`,
		`{"type":""}`:                             `{"type":"","schemaVersion":1}`,
		`{"type":"cut short`:                      `{"type":"cut short`,
	} {
		b := []byte("x\n" + in)
		if got := string(withVersion(b, 2)); got != "x\n"+want {
			t.Errorf("withVersion(%s) = %q", in, got)
		}
	}
}
