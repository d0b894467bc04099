package structured

import (
	"strings"
	"testing"
)

func TestSchemaCheck(t *testing.T) {
	t.Parallel()
	sch, err := NewSchema([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"properties":{"n":{"type":"integer","minimum":0},"tags":{"type":"array","items":{"type":"string"}}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		answer, want, errHas string
	}{
		{`{"n": 3}`, `{"n":3}`, ""},
		{"  {\"n\": 3, \"tags\": [\"a\"]}\n", `{"n":3,"tags":["a"]}`, ""},
		{"```json\n{\"n\": 4}\n```", `{"n":4}`, ""},
		{"```\n{\"n\": 5}\n```", `{"n":5}`, ""},
		{`{"n": 9007199254740993}`, `{"n":9007199254740993}`, ""}, // integers stay exact
		{`{"n": 1.5}`, "", "does not satisfy the schema"},
		{`{"tags": []}`, "", "does not satisfy the schema"},
		{`{"n": 3} {"n": 4}`, "", "more than one JSON value"},
		{"Here it is: {\"n\": 3}", "", "not JSON"},
		{"```json\n{\"n\": 1}\n```\nand\n```json\n{\"n\": 2}\n```", "", "not JSON"},
		{``, "", "not JSON"},
	}
	for _, tt := range tests {
		got, err := sch.Check(tt.answer)
		switch {
		case tt.errHas == "" && (err != nil || string(got) != tt.want):
			t.Errorf("Check(%q) = %s, %v; want %s", tt.answer, got, err, tt.want)
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("Check(%q) error %v, want one with %q", tt.answer, err, tt.errHas)
		}
	}
}

func TestSchemaRefused(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]string{
		`{"type": 7}`:                       "not a JSON Schema",
		`{"type": "object"} {}`:             "more than one JSON value",
		`[1, 2]`:                            "not a JSON Schema",
		`{"$ref": "https://example.com/s"}`: "",
		`{"$schema": "https://json-schema.org/draft-04/schema"}`: "use draft 2020-12",
	} {
		_, err := NewSchema([]byte(doc))
		if err == nil || want != "" && !strings.Contains(err.Error(), want) {
			t.Errorf("NewSchema(%s) = %v, want an error %q", doc, err, want)
		}
	}
	// draft-07 is read too
	sch, err := NewSchema([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sch.Check(`"ok"`); err != nil {
		t.Error(err)
	}
	if !strings.Contains(sch.Instructions(), `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`) {
		t.Errorf("instructions %q", sch.Instructions())
	}
}
