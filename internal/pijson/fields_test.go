package pijson

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestFieldsLastKeyWins(t *testing.T) {
	fs, null, err := Fields([]byte(`{"a":1,"b\u0041":[2],"a":"x"}`))
	if err != nil || null {
		t.Fatal(err, null)
	}
	if len(fs) != 2 || fs[0].Key != "a" || string(fs[0].Value) != `"x"` || fs[1].Key != "bA" || string(fs[1].Value) != `[2]` {
		t.Fatalf("fields %q", fs)
	}
	if _, null, err := Fields([]byte(` null `)); err != nil || !null {
		t.Fatalf("null: %v %v", null, err)
	}
}

func TestUnquote(t *testing.T) {
	for src, want := range map[string]string{`"a"`: "a", `"\u00e9\n"`: "é\n", `"\ud800"`: "\ufffd", " \"\xff\" ": "\ufffd"} {
		if got, err := Unquote([]byte(src)); err != nil || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", src, got, err, want)
		}
	}
	for _, src := range []string{``, `1`, `"a`, `"a" "b"`, `"\q"`} {
		if _, err := Unquote([]byte(src)); err == nil {
			t.Errorf("Unquote(%s): want error", src)
		}
	}
}

// Fields, RawFields, FieldsWith and Validate agree with encoding/json:
// the same values for the same keys (the last of a repeated key), or an
// error for the same inputs.
func FuzzFields(f *testing.F) {
	for _, s := range []string{"{\"a\":\"0123456789abcdef\\\"0123456789abcde\\n\",\"b\":\"0123456789abcdef\x01\"}",
		"{\"a\":\"01234567\x1f89abcdef0123456\xe2\x80 x\",\"a\":\"0123456789abcdef0123456789abcdef\"}",
		`{"a":1,"a":2,"b":{"c":[1,"x"]}}`, "{\"s\":\"12345678\\n\xff abcdefgh \\u00e9\", \"t\":\"plain ascii id 1234\"}", ` null `, `{"k\u00e9":"\ud800 \xff"}`, `{"a":tru}`, `[1]`, `{"a":1} x`, `{}`, `{"a" : [ ] , "b":-0.5e+3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		werr := json.Unmarshal(data, &want)
		if _, err := Validate(data); (err == nil) != json.Valid(data) {
			t.Fatalf("Validate: %v, json.Valid: %v", err, json.Valid(data))
		}
		fs, null, err := Fields(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Fields: %v, encoding/json: %v", err, werr)
		}
		if err != nil {
			return
		}
		if null != (want == nil) {
			t.Fatalf("null %v, encoding/json's map %v", null, want)
		}
		got := map[string]json.RawMessage{}
		for _, f := range fs {
			if _, ok := got[f.Key]; ok {
				t.Fatalf("key %q given twice", f.Key)
			}
			got[f.Key] = json.RawMessage(f.Value)
			var ws string
			if json.Unmarshal(f.Value, &ws) == nil {
				var gs string
				if err := String(f.Key, f.Value, &gs); err != nil || gs != ws {
					t.Fatalf("String(%s) = %q, %v; encoding/json: %q", f.Value, gs, err, ws)
				}
			}
		}
		if !null && !cmp.Equal(got, want) {
			t.Fatalf("Fields differ from encoding/json: %s", cmp.Diff(want, got))
		}
		again, _, err := RawFields(data)
		if err != nil || !cmp.Equal(again, fs) {
			t.Fatalf("RawFields: %v %v, Fields: %v", again, err, fs)
		}
		if null {
			return
		}
		with, err := FieldsWith(data, &Scratch{}, "a", func(s *Scanner) error { _, err := s.Raw(); return err })
		if err != nil || !cmp.Equal(with, fs, cmpopts.EquateEmpty()) {
			t.Fatalf("FieldsWith: %v %v, Fields: %v", with, err, fs)
		}
	})
}
