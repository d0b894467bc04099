package schemaguard

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// FuzzCompileValidate: whatever the document and the value, Check,
// Compile and Validate return (an error or not); a schema that compiles
// never sends Validate into a recursion that ends the process.
func FuzzCompileValidate(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"$ref":"#"}`, `1`},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`, `{}`},
		{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, `{"a":{"a":{"a":{}}}}`},
		{`{"items":{"$ref":"#"}}`, `[[[[[[[[[[]]]]]]]]]]`},
		{`{"$defs":{"a":{"$anchor":"x","anyOf":[{"$ref":"#x"}]}},"properties":{"p":{"$ref":"#/$defs/a"}}}`, `{"p":1}`},
		{`{"type":"objekt"}`, `{}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, doc, value string) {
		_ = Check([]byte(doc))
		var s jsonschema.Schema
		if json.Unmarshal([]byte(doc), &s) != nil {
			return
		}
		c, err := Compile([]byte(doc), &s)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal([]byte(value), &v) != nil {
			return
		}
		_ = c.Validate(v)
	})
}
