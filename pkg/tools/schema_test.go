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

// TestSchemaEdges pins each check at its edges: bounds one under, at and
// one over (lengths in characters, not bytes), type lists, const and enum
// of numbers and structures, allOf, additionalProperties as a schema,
// integers, and how a value is described in the message.
func TestSchemaEdges(t *testing.T) {
	const sch = `{"type":"object","properties":{
		"n":{"type":"number","minimum":1.5,"maximum":3},
		"s":{"type":"string","minLength":2,"maxLength":3},
		"l":{"type":"array","minItems":1,"maxItems":2},
		"i":{"type":"integer"},
		"sn":{"type":["string","null"]},
		"c":{"const":{"a":[1,2]}},
		"e":{"enum":[1,"x",[true],{"k":null}]},
		"all":{"allOf":[{"type":"integer"},{"minimum":2}]},
		"one":{"oneOf":[{"type":"string"},{"type":"integer"}]},
		"free":{"type":"object","additionalProperties":{"type":"boolean"}},
		"open":{"type":"object","additionalProperties":true}
	}}`
	s, err := compileSchema([]byte(sch))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ doc, err string }{
		{`{"n":1.5}`, ""},
		{`{"n":3}`, ""},
		{`{"n":1.4999}`, `/n: 1.4999 is out of bounds`},
		{`{"n":3.0001}`, `/n: 3.0001 is out of bounds`},
		{`{"s":"ab"}`, ""},
		{`{"s":"ééé"}`, ""}, // three characters, six bytes
		{`{"s":"a"}`, `/s: length 1 is out of bounds`},
		{`{"s":"abcd"}`, `/s: length 4 is out of bounds`},
		{`{"l":[1]}`, ""},
		{`{"l":[1,2]}`, ""},
		{`{"l":[]}`, `/l: 0 items is out of bounds`},
		{`{"l":[1,2,3]}`, `/l: 3 items is out of bounds`},
		{`{"i":-7}`, ""},
		{`{"i":1e400}`, `/i: want integer, got number 1e400`},
		{`{"i":true}`, `/i: want integer, got boolean true`},
		{`{"sn":null}`, ""},
		{`{"sn":"x"}`, ""},
		{`{"sn":{}}`, `/sn: want string or null, got an object`},
		{`{"sn":[]}`, `/sn: want string or null, got an array`},
		{`{"sn":1}`, `/sn: want string or null, got number 1`},
		{`{"sn":false}`, `/sn: want string or null, got boolean false`},
		{`{"c":{"a":[1,2.0]}}`, ""},
		{`{"c":{"a":[2,1]}}`, `/c: an object is not the required value`},
		{`{"c":1}`, `/c: number 1 is not the required value`},
		{`{"e":1.0}`, ""},
		{`{"e":"x"}`, ""},
		{`{"e":[true]}`, ""},
		{`{"e":{"k":null}}`, ""},
		{`{"e":2}`, `/e: number 2 is not one of the allowed values`},
		{`{"e":"1"}`, `/e: string "1" is not one of the allowed values`},
		{`{"e":{"k":0}}`, `/e: an object is not one of the allowed values`},
		{`{"e":null}`, `/e: null is not one of the allowed values`},
		{`{"all":2}`, ""},
		{`{"all":1}`, `/all: 1 is out of bounds`},
		{`{"all":2.5}`, `/all: want integer, got number 2.5`},
		{`{"one":"x"}`, ""},
		{`{"one":1.5}`, `/one: number 1.5 matches 0 of the shapes, want exactly one`},
		{`{"free":{"a":true,"b":false}}`, ""},
		{`{"free":{"a":true,"b":1}}`, `/free/b: want boolean, got number 1`},
		{`{"open":{"a":1}}`, ""},
		{`{"s":"` + strings.Repeat("x", 41) + `"}`, `/s: length 41 is out of bounds`},
		{`{"i":"` + strings.Repeat("y", 41) + `"}`, `/i: want integer, got string "` + strings.Repeat("y", 40) + `…"`},
		{`{"i":"` + strings.Repeat("y", 40) + `"}`, `/i: want integer, got string "` + strings.Repeat("y", 40) + `"`},
	}
	for _, c := range cases {
		err := s.validateJSON([]byte(c.doc))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.doc, err)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s: error %v, want %q", c.doc, err, c.err)
		}
	}
}

// Each malformed keyword is refused with its name and the path to it.
func TestMalformedSchemaMessages(t *testing.T) {
	for bad, want := range map[string]string{
		`{"enum":{}}`:                           "enum: want a list",
		`{"maximum":"high"}`:                    "maximum: want a number",
		`{"minLength":1.5}`:                     "minLength: want a whole number",
		`{"minItems":-1}`:                       "minItems: want a whole number",
		`{"additionalProperties":{"type":"x"}}`: `additionalProperties: type: unknown type "x"`,
		`{"items":{"type":"x"}}`:                `items: type: unknown type "x"`,
		`{"allOf":[{},{"type":"x"}]}`:           `allOf[1]: type: unknown type "x"`,
		`{"oneOf":{}}`:                          "oneOf: want a list of schemas",
		`{"properties":{"p":{"properties":{"q":{"type":1}}}}}`: "properties.p: properties.q: type: want a name or a list of names",
		`{"type":["string","text"]}`:                           `type: unknown type "text"`,
		`{"required":[1]}`:                                     "required: want a list of names",
	} {
		_, err := compileSchema([]byte(bad))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
}
