package structured

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"gopi/internal/schemaguard"
	"gopi/pkg/ai"
)

// DefaultRetries is how many times an answer that does not fit the
// output schema is sent back to the model by default.
const DefaultRetries = 2

// Schema is the JSON Schema (draft 2020-12 or draft-07) the final answer
// of a run must satisfy (--output-schema).
type Schema struct {
	raw      json.RawMessage // compact
	resolved *schemaguard.Schema
}

// NewSchema reads a schema document; an error says what is wrong with
// it. References outside the document are refused: a run never fetches
// anything to check its answer; so are unknown type names and a $ref
// cycle that reads none of the answer (schemaguard).
func NewSchema(doc []byte) (*Schema, error) {
	var s jsonschema.Schema
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not a JSON Schema: more than one JSON value")
	}
	switch s.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
	default:
		return nil, fmt.Errorf("$schema %q: use draft 2020-12 (https://json-schema.org/draft/2020-12/schema) or draft-07", s.Schema)
	}
	resolved, err := schemaguard.Compile(doc, &s)
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %v", err)
	}
	return &Schema{raw: compact.Bytes(), resolved: resolved}, nil
}

// JSON returns the schema document, compact.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// Instructions tell the model the shape of its final answer; they are
// added to the system prompt.
func (s *Schema) Instructions() string {
	return "# Final answer format\n\nWhen you have finished, your final answer must be one JSON value, and nothing else " +
		"(no prose, no code fence), that is valid against this JSON Schema:\n\n" + string(s.raw)
}

// Check reads text as the final answer: the JSON value it holds (the
// whole text, or one fenced code block the model put it in) when it is
// valid against the schema; otherwise an error listing what is wrong.
func (s *Schema) Check(text string) (json.RawMessage, error) {
	raw := answerJSON(text)
	var v any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the answer holds more than one JSON value")
	}
	if err := s.resolved.Validate(numbers(v)); err != nil {
		return nil, fmt.Errorf("the answer does not satisfy the schema: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(raw)); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

// Correction is what the model is told when its answer does not fit:
// Check's error, at time now (Unix milliseconds).
func (s *Schema) Correction(err error, now int64) ai.Message {
	return ai.UserText("Your final answer is not valid: "+err.Error()+
		"\n\nAnswer again with only the corrected JSON value, valid against the schema in your instructions.", now)
}

// answerJSON is the text without white space around it, or the inside of
// the one fenced code block it consists of.
func answerJSON(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	inner := strings.TrimSuffix(t[3:], "```")
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{[\"") {
		inner = inner[nl+1:] // the fence's language tag, e.g. json
	}
	if strings.Contains(inner, "```") {
		return t
	}
	return strings.TrimSpace(inner)
}

// numbers turns json.Number into float64 or int64, as the validator takes
// them, keeping integers exact.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}
