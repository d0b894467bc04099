package structured

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func mustSchema(t *testing.T, doc string) *Schema {
	t.Helper()
	s, err := NewSchema([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Integers are checked exactly, in arrays and objects too: 2^53+1 is
// over a maximum of 2^53 although a float64 cannot tell them apart.
func TestCheckIntegersExactEverywhere(t *testing.T) {
	t.Parallel()
	top := mustSchema(t, `{"type":"integer","maximum":9007199254740992}`)
	if _, err := top.Check(`9007199254740993`); err == nil {
		t.Error("2^53+1 passed a maximum of 2^53")
	}
	if got, err := top.Check(`9007199254740992`); err != nil || string(got) != `9007199254740992` {
		t.Errorf("2^53: %s, %v", got, err)
	}
	nested := mustSchema(t, `{"type":"object","properties":{"list":{"type":"array","items":{"type":"integer","maximum":9007199254740992}}}}`)
	if _, err := nested.Check(`{"list": [1, 9007199254740993]}`); err == nil {
		t.Error("2^53+1 in an array passed a maximum of 2^53")
	}
	if got, err := nested.Check(`{"list": [1, 2.0e0]}`); err != nil || string(got) != `{"list":[1,2.0e0]}` {
		t.Errorf("a list of integers: %s, %v", got, err)
	}
	if _, err := nested.Check(`{"list": [1.5]}`); err == nil {
		t.Error("1.5 passed as an integer in an array")
	}
}

func TestCheckFences(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer"}}}`)
	for answer, want := range map[string]string{
		"```{\"n\": 6}```":                 `{"n":6}`,
		"```{\"n\": 7,\n\"m\": [1]}\n```":  `{"n":7,"m":[1]}`,
		"```json\n{\"n\": 8}```":           `{"n":8}`,
		"\n```JSON\n  {\"n\": 9}  \n```\n": `{"n":9}`,
	} {
		if got, err := s.Check(answer); err != nil || string(got) != want {
			t.Errorf("Check(%q) = %s, %v; want %s", answer, got, err, want)
		}
	}
	for answer, want := range map[string]string{
		"```":             "the answer is not JSON: invalid character '`' looking for beginning of value",
		"``````":          "the answer is not JSON: EOF",
		"```a```":         "the answer is not JSON: invalid character 'a' looking for beginning of value",
		"{\"n\": 1}\n```": "the answer holds more than one JSON value",
	} {
		if _, err := s.Check(answer); err == nil || err.Error() != want {
			t.Errorf("Check(%q) error %v, want %q", answer, err, want)
		}
	}
}

func TestCheckErrorsSayWhat(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"type":"string"}`)
	_, err := s.Check(`3`)
	if err == nil || !strings.HasPrefix(err.Error(), "the answer does not satisfy the schema: ") {
		t.Fatalf("err = %v", err)
	}
	if _, err := s.Check(`"a" "b"`); err == nil || err.Error() != "the answer holds more than one JSON value" {
		t.Fatalf("err = %v", err)
	}
}

func TestSchemaJSONIsCompact(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, "{\n  \"type\": \"object\",\n  \"required\": [\"a\"]\n}\n")
	if string(s.JSON()) != `{"type":"object","required":["a"]}` {
		t.Fatalf("JSON = %s", s.JSON())
	}
	want := "# Final answer format\n\nWhen you have finished, your final answer must be one JSON value, and nothing else " +
		"(no prose, no code fence), that is valid against this JSON Schema:\n\n" + `{"type":"object","required":["a"]}`
	if s.Instructions() != want {
		t.Fatalf("Instructions = %q", s.Instructions())
	}
}

func TestNewSchemaErrors(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]string{
		`{"type": "object"} {}`:                                  "not a JSON Schema: more than one JSON value",
		`{"$schema": "https://json-schema.org/draft-04/schema"}`: `$schema "https://json-schema.org/draft-04/schema": use draft 2020-12 (https://json-schema.org/draft/2020-12/schema) or draft-07`,
		`{`: "not a JSON Schema: unexpected EOF",
	} {
		if s, err := NewSchema([]byte(doc)); s != nil || err == nil || err.Error() != want {
			t.Errorf("NewSchema(%s) = %v, %v; want %q", doc, s, err, want)
		}
	}
	if s, err := NewSchema([]byte(`{"$ref": "https://example.com/s"}`)); s != nil || err == nil {
		t.Errorf("an outside reference: %v, %v", s, err)
	}
	for _, draft := range []string{"", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#"} {
		doc := `{"type":"string"}`
		if draft != "" {
			doc = `{"$schema":"` + draft + `","type":"string"}`
		}
		s, err := NewSchema([]byte(doc))
		if err != nil {
			t.Errorf("%q: %v", draft, err)
			continue
		}
		if _, err := s.Check(`1`); err == nil {
			t.Errorf("%q: a number passed as a string", draft)
		}
	}
}

func TestCorrection(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"type":"string"}`)
	m := s.Correction(errors.New("the answer is not JSON: EOF"), 1234)
	want := "Your final answer is not valid: the answer is not JSON: EOF\n\nAnswer again with only the corrected JSON value, valid against the schema in your instructions."
	if m.Text() != want || m.Timestamp != 1234 || m.Role != "user" {
		t.Fatalf("correction %+v", m)
	}
}

// The default number of retries is the one the README promises.
func TestDefaultRetriesIsDocumented(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip(err)
	}
	m := regexp.MustCompile("`--output-retries N` times\\s+\\(default (\\d+)\\)").FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README no longer says --output-retries's default")
	}
	if n, _ := strconv.Atoi(string(m[1])); n != DefaultRetries {
		t.Fatalf("README says the default is %d retries, DefaultRetries is %d", n, DefaultRetries)
	}
}
