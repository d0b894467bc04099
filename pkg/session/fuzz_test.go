package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, name := range []string{"v1.jsonl", "v2.jsonl", "v3.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", "pi", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, l := range piLines {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n{\"a\":\"\\ud800\\u00e9\xff\"}\n\x00"))
}

// The reader never panics, and every problem it reports is located: an
// error names the file, a warning its line and offset.
func FuzzRead(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, w := range file.Warnings {
			if w.Kind == WarnMigrated {
				continue
			}
			if w.Line < 2 || w.Offset < 0 || w.Offset >= int64(len(data)) || !strings.HasPrefix(w.String(), "fuzz.jsonl:") {
				t.Fatalf("unlocated warning %+v", w)
			}
		}
		for _, e := range file.Entries {
			b, err := e.MarshalJSON()
			if err != nil {
				continue // e.g. invalid raw JSON in a message's extra fields cannot happen, but do not panic
			}
			if !json.Valid(b) {
				t.Fatalf("entry re-encodes to invalid JSON: %s", b)
			}
		}
		if n, ok := Newest(file.Entries); ok {
			path, _, err := PathTo(file.Entries, n.ID)
			if err == nil {
				BuildContext(path, Budget{ContextWindow: 1000})
			}
		}
	})
}
