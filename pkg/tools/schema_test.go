package tools

import (
	"strings"
	"testing"
)

func TestSchemaValidation(t *testing.T) {
	const sch = `{"type":"object","properties":{
		"path":{"type":"string","minLength":1},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"mode":{"enum":["fast","slow"]},
		"tags":{"type":"array","items":{"type":"string"},"maxItems":2},
		"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"}},"required":["old"],"additionalProperties":false}},
		"either":{"anyOf":[{"type":"string"},{"type":"null"}]},
		"exactly":{"oneOf":[{"type":"integer"},{"type":"number","minimum":10}]}
	},"required":["path"],"additionalProperties":false}`
	s, err := compileSchema([]byte(sch))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ doc, err string }{
		{`{"path":"a"}`, ""},
		{`{"path":"a","limit":5,"mode":"fast","tags":["x"],"edits":[{"old":"o"}],"either":null}`, ""},
		{`{"path":"a","limit":5.0}`, ""}, // 5.0 is an integer in JSON Schema
		{`{}`, `arguments: missing property "path"`},
		{`{"path":7}`, `/path: want string, got number 7`},
		{`{"path":""}`, `/path: length 0 is out of bounds`},
		{`{"path":"a","limit":"soon"}`, `/limit: want integer, got string "soon"`},
		{`{"path":"a","limit":2.5}`, `/limit: want integer, got number 2.5`},
		{`{"path":"a","limit":500}`, `/limit: 500 is out of bounds`},
		{`{"path":"a","mode":"medium"}`, `/mode: string "medium" is not one of the allowed values`},
		{`{"path":"a","tags":["x",1]}`, `/tags/1: want string, got number 1`},
		{`{"path":"a","tags":["x","y","z"]}`, `/tags: 3 items is out of bounds`},
		{`{"path":"a","edits":[{"old":"o","new":"n"}]}`, `/edits/0: unknown property "new"`},
		{`{"path":"a","edits":[{}]}`, `/edits/0: missing property "old"`},
		{`{"path":"a","extra":1}`, `arguments: unknown property "extra"`},
		{`{"path":"a","either":3}`, `/either: number 3 matches none of the allowed shapes`},
		{`{"path":"a","exactly":12}`, `/exactly: number 12 matches 2 of the shapes, want exactly one`},
		{`[1]`, `arguments: want object, got an array`},
		{`{"path":`, `not valid JSON`},
		{`{"path":"a"} {}`, `more than one value`},
	}
	for _, c := range cases {
		err := s.validateJSON([]byte(c.doc))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.doc, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.doc, err, c.err)
		}
	}
}

func TestMalformedSchemasAreRefused(t *testing.T) {
	for _, bad := range []string{`[]`, `{"type":"text"}`, `{"type":7}`, `{"properties":[]}`, `{"required":"path"}`,
		`{"properties":{"a":{"type":"nope"}}}`, `{"minimum":"low"}`, `{"anyOf":[]}`, `{"items":3}`, `{"maxItems":-1}`} {
		if _, err := compileSchema([]byte(bad)); err == nil {
			t.Errorf("%s: compiled", bad)
		}
	}
}

func TestBuiltinSchemasCompile(t *testing.T) {
	all, err := Builtins(Options{}, AllNames...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range all {
		if _, err := compileSchema(tool.Spec().Parameters); err != nil {
			t.Errorf("%s: %v", tool.Spec().Name, err)
		}
	}
}

// TestZeroBoundsAreBounds: 0 is a bound like any other (an empty list or
// string is all maxItems 0 or maxLength 0 admits), not a malformed one.
func TestZeroBoundsAreBounds(t *testing.T) {
	s, err := compileSchema([]byte(`{"type":"object","properties":{"none":{"type":"array","maxItems":0},"empty":{"type":"string","maxLength":0,"minLength":0}}}`))
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	for doc, ok := range map[string]bool{`{"none":[],"empty":""}`: true, `{"none":[1]}`: false, `{"empty":"x"}`: false} {
		if err := s.validateJSON([]byte(doc)); (err == nil) != ok {
			t.Errorf("%s: error %v, want valid %v", doc, err, ok)
		}
	}
}
