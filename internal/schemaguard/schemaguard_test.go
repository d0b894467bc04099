package schemaguard

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func compile(t *testing.T, doc string) (*Schema, error) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("decode %s: %v", doc, err)
	}
	return Compile([]byte(doc), &s)
}

// A $ref cycle that reads no input made the validator recurse until the
// stack overflowed (gopi died with no result line): such a schema is
// refused when it is read.
func TestCompileRefusesCycles(t *testing.T) {
	for name, doc := range map[string]string{
		"root to itself":    `{"$ref":"#"}`,
		"defs loop":         `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
		"definitions":       `{"definitions":{"a":{"not":{"$ref":"#/definitions/a"}}},"properties":{"x":{"$ref":"#/definitions/a"}}}`,
		"anchor":            `{"items":{"$ref":"#/$defs/a"},"$defs":{"a":{"$anchor":"here","anyOf":[{"$ref":"#here"}]}}}`,
		"by $id":            `{"$id":"https://example.com/root","allOf":[{"$ref":"a.json"}],"$defs":{"a":{"$id":"a.json","if":{"$ref":"a.json"}}}}`,
		"dependentSchemas":  `{"dependentSchemas":{"x":{"$ref":"#"}}}`,
		"draft-07 depends":  `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"x":{"$ref":"#"}}}`,
		"oneOf then":        `{"oneOf":[{"then":{"$ref":"#"}}]}`,
		"bool branch first": `{"anyOf":[true,{"$ref":"#"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := compile(t, doc)
			if !errors.Is(err, ErrCycle) {
				t.Fatalf("Compile(%s) = %v, want a cycle", doc, err)
			}
			if !strings.Contains(err.Error(), "without going into a property or an item") {
				t.Errorf("message %q does not say why", err)
			}
		})
	}
}

// A cycle no value can reach (an unused definition) cannot loop: the
// schema compiles.
func TestCompileTakesUnusedCycles(t *testing.T) {
	if _, err := compile(t, `{"type":"object","$defs":{"a":{"$ref":"#/$defs/a"}}}`); err != nil {
		t.Fatal(err)
	}
}

// A recursive schema that goes into a property or an item each time
// is a tree: it compiles and checks.
func TestCompileTakesRecursionThroughParts(t *testing.T) {
	doc := `{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#"}}},
		"additionalProperties":false,"$defs":{"n":{"propertyNames":{"$ref":"#/$defs/n"}}}}`
	s, err := compile(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	var ok, bad any
	json.Unmarshal([]byte(`{"name":"a","kids":[{"name":"b","kids":[]}]}`), &ok)
	json.Unmarshal([]byte(`{"name":"a","kids":[{"name":5}]}`), &bad)
	if err := s.Validate(ok); err != nil {
		t.Errorf("valid value refused: %v", err)
	}
	if err := s.Validate(bad); err == nil {
		t.Error("invalid value accepted")
	}
}

func TestCompileRefusesUnknownTypes(t *testing.T) {
	for _, doc := range []string{`{"type":"objekt"}`, `{"properties":{"a":{"type":["string","nul"]}}}`} {
		_, err := compile(t, doc)
		if err == nil || !strings.Contains(err.Error(), "is not a JSON Schema type") {
			t.Errorf("Compile(%s) = %v, want an unknown type", doc, err)
		}
	}
	if _, err := compile(t, `{"type":["object","null"],"properties":{"type":{"type":"integer"}}}`); err != nil {
		t.Errorf("known types refused: %v", err)
	}
}

// Validation is bounded: a value nested past MaxDepth is refused, not
// followed.
func TestValidateDepth(t *testing.T) {
	s, err := compile(t, `{"items":{"$ref":"#"}}`)
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	var v any
	if err := json.Unmarshal([]byte(deep), &v); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err == nil || !strings.Contains(err.Error(), "deeper than") {
		t.Errorf("Validate(deep) = %v", err)
	}
	shallow := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	json.Unmarshal([]byte(shallow), &v)
	if err := s.Validate(v); err != nil {
		t.Errorf("Validate(depth %d) = %v", MaxDepth, err)
	}
}
