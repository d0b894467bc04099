package settings

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// JSONProblem says what is wrong in the user's words, with the line and
// column (in characters, from 1) of a syntax error.
func TestJSONProblem(t *testing.T) {
	for _, c := range []struct {
		doc  string
		into any
		want string
	}{
		{"{\n \"a\": 1,\n}", &map[string]any{}, `not valid JSON at line 3, column 1: a key must be a quoted string ("key": value) and no comma may end an object`},
		{`{"a": 1 "b": 2}`, &map[string]any{}, `not valid JSON at line 1, column 9: a comma or closing bracket is missing before this point`},
		{`["a" "b"]`, &[]string{}, `not valid JSON at line 1, column 6: a comma or closing bracket is missing before this point`},
		{`{"a": `, &map[string]any{}, `not valid JSON at line 1, column 6: the file ends before the JSON does (a closing bracket missing?)`},
		{"{\"é\": x}", &map[string]any{}, `not valid JSON at line 1, column 7: unexpected 'x' looking for beginning of value`},
		{`{"a": "x"}`, &struct {
			A int `json:"a"`
		}{}, `"a" is a string: give a whole number`},
		{`{"a": {"b": 1.5}}`, &struct {
			A struct {
				B bool `json:"b"`
			} `json:"a"`
		}{}, `"a.b" is a number: give true or false`},
		{`{"a": 1.5}`, &struct {
			A uint8 `json:"a"`
		}{}, `"a" is a number (1.5): give a whole number`},
		{`{"a": 300}`, &struct {
			A uint8 `json:"a"`
		}{}, `"a" is a number (300): give a whole number`},
		{`{"a": [1]}`, &struct {
			A *string `json:"a"`
		}{}, `"a" is a list: give a string`},
		{`{"a": true}`, &struct {
			A []string `json:"a"`
		}{}, `"a" is true or false: give a list`},
		{`{"a": {}}`, &struct {
			A float64 `json:"a"`
		}{}, `"a" is an object: give a number`},
		{`{"a": "x"}`, &struct {
			A map[string]int `json:"a"`
		}{}, `"a" is a string: give an object`},
		{`"x"`, &[]string{}, `a value is a string: give a list`},
		{``, &[]string{}, `not valid JSON at line 1, column 1: the file ends before the JSON does (a closing bracket missing?)`},
		// The names of Go types and untagged fields on the way are left out.
		{`{"Alpha": {"Zed": {"b": 1}}}`, &struct {
			Alpha struct {
				Zed struct {
					B bool `json:"b"`
				}
			}
		}{}, `"b" is a number: give true or false`},
		{`{"Alpha": 1}`, &struct{ Alpha bool }{}, `a value is a number: give true or false`},
	} {
		err := json.Unmarshal([]byte(c.doc), c.into)
		if err == nil {
			t.Fatalf("%s decoded", c.doc)
		}
		if got := JSONProblem([]byte(c.doc), err); got != c.want {
			t.Errorf("%s: %q, want %q", c.doc, got, c.want)
		}
	}
	dec := json.NewDecoder(strings.NewReader(`{"b": 1}`))
	dec.DisallowUnknownFields()
	var v struct{}
	if got := JSONProblem(nil, dec.Decode(&v)); got != `unknown field "b"` {
		t.Errorf("an unknown field: %q", got)
	}
	// Any other error (a type's own UnmarshalJSON's) is said as it is.
	if got := JSONProblem(nil, errors.New("json: the provider is wrong")); got != "the provider is wrong" {
		t.Errorf("another error: %q", got)
	}
}

func TestDescribeValue(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "null"}, {true, "a boolean (true)"}, {2.5, "a number (2.5)"}, {"s", `a string ("s")`},
		{[]any{"a"}, `a list (["a"])`}, {map[string]any{"a": 1.0}, `an object ({"a":1})`},
		{strings.Repeat("é", 38), `a string ("` + strings.Repeat("é", 38) + `")`},
		{strings.Repeat("é", 39), `a string ("` + strings.Repeat("é", 36) + `…)`},
	} {
		if got := describeValue(c.v); got != c.want {
			t.Errorf("describeValue(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
