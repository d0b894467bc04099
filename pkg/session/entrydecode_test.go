package session

import (
	"testing"

	"gopi/pkg/ai"

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
	var sc ai.Scratch
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := decodeEntryGeneral(data)
		for _, sc := range []*ai.Scratch{nil, &sc} {
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
