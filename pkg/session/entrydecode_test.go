package session

import (
	"fmt"
	"gopi/internal/pijson"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var entryDecodeSeeds = []string{
	`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi","timestamp":1}}`,
	`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"x\u00e9\n"}]},"zz":[1,{"a":"b"}]}`,
	`{"type":"message","id":"a","message":{"role":"user","timestamp":"x"},"message":{"role":"user"}}`,
	`{"type":"message","id":"a","message":{"role":"user"},"message":null}`,
	`{"type":"message","id":"a","message":{"role":"bashExecution","command":"ls","content":"x"}}`,
	`{"type":"message","id":"a","message":{"role":"user","role":"assistant","content":[]}}`,
	`{"type":"custom","id":"a","message":{"role":5}}`,
	`{"message":{"role":"user"},"id":"a","type":"message"}`,
	`{"type":"message","id":"a","message":"text"}`,
	`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"\x01"}]}}`,
	`{"type":"message","id":"a","message":{"role":"user","content":[null,{"type":"audio","x":1}]}}`,
	`null`,
	`{"type":"message","message":{"role":"toolResult","details":{"a":[1,2]},"usage":{"input":1}}} x`,
}

// The one-pass decoding of an entry agrees with the general path: the
// same entry, or the same error.
func FuzzDecodeEntry(f *testing.F) {
	for _, s := range entryDecodeSeeds {
		f.Add([]byte(s))
	}
	for _, l := range piLines {
		f.Add([]byte(l))
	}
	// One scratch across every input, as a reading goroutine keeps one:
	// what a line leaves in it must not reach the next line's entry.
	var sc pijson.Scratch
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := decodeEntryGeneral(data)
		for _, sc := range []*pijson.Scratch{nil, &sc} {
			got, gerr := decodeEntry(data, sc)
			if sc != nil { // the next line reuses the scratch
				_, _ = decodeEntry([]byte(piLines["message_assistant"]), sc)
			}
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("general: %v, decodeEntry: %v", werr, gerr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("decodeEntry differs from the general path: %s", diff)
			}
		}
	})
}

// A compaction's tokensBefore written as a float by another tool is read
// as its integer part; one that is not a number makes the line corrupt.
func TestTokensBeforeAsFloat(t *testing.T) {
	t.Parallel()
	head := `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}` + "\n"
	line := func(id, tokens string) string {
		return `{"type":"compaction","id":"` + id + `","parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"x","tokensBefore":` + tokens + "}\n"
	}
	data := head + line("a", "1.5e3") + line("b", "-2.5") + line("c", "0.9") + line("d", `"12"`) + line("e", "true") + line("f", "null")
	f, err := Read(strings.NewReader(data), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.Entries {
		got = append(got, fmt.Sprintf("%s=%d", e.ID, e.TokensBefore))
	}
	if strings.Join(got, " ") != "a=1500 b=-2 c=0 f=0" {
		t.Errorf("entries %q", got)
	}
	if len(f.Warnings) != 2 || f.Warnings[0].Line != 5 || f.Warnings[1].Line != 6 || f.Warnings[0].Kind != WarnCorruptLine ||
		!strings.Contains(f.Warnings[0].Message, "tokensBefore: not a number") {
		t.Errorf("warnings %v", f.Warnings)
	}
}
