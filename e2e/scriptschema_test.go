package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
)

var (
	outputSchemaOnce sync.Once
	outputSchema     *jsonschema.Resolved
	outputSchemaErr  error
)

// loadOutputSchema reads docs/schema/output.schema.json once.
func loadOutputSchema() (*jsonschema.Resolved, error) {
	outputSchemaOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("..", "docs", "schema", "output.schema.json"))
		if err != nil {
			outputSchemaErr = err
			return
		}
		var s jsonschema.Schema
		if outputSchemaErr = json.Unmarshal(raw, &s); outputSchemaErr == nil {
			outputSchema, outputSchemaErr = s.Resolve(nil)
		}
	})
	return outputSchema, outputSchemaErr
}

// cmdSchemaCheck checks every JSON line of a file (or stdout) against the
// published output schema; there must be at least one.
func cmdSchemaCheck(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "schemacheck")
	if len(args) != 1 {
		ts.Fatalf("usage: schemacheck FILE")
	}
	sch, err := loadOutputSchema()
	ts.Check(err)
	n := 0
	for i, line := range bytes.Split([]byte(ts.ReadFile(args[0])), []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		n++
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			ts.Fatalf("%s line %d: %v", args[0], i+1, err)
		}
		if err := sch.Validate(v); err != nil {
			ts.Fatalf("%s line %d does not match docs/schema/output.schema.json: %v\n%s", args[0], i+1, err, line)
		}
	}
	if n == 0 {
		ts.Fatalf("%s holds no JSON line", args[0])
	}
}
