package session

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// piLines are entries as pi writes them (field order and all).
var piLines = map[string]string{
	"message_user":        `{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi <b> & \"you\""}],"timestamp":1772359201000}}`,
	"message_user_str":    `{"type":"message","id":"b2c3d4e6","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"plain","timestamp":1772359201000}}`,
	"message_assistant":   `{"type":"message","id":"c3d4e5f6","parentId":"b2c3d4e5","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"text","text":"Hello!"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.go"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":13,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1772359202000}}`,
	"message_toolresult":  `{"type":"message","id":"d4e5f6a7","parentId":"c3d4e5f6","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"package a\n"}],"details":{"lines":1},"isError":false,"timestamp":1772359203000}}`,
	"model_change":        `{"type":"model_change","id":"a1b2c3d4","parentId":null,"timestamp":"2026-03-01T10:00:00.001Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`,
	"thinking_level":      `{"type":"thinking_level_change","id":"a1b2c3d5","parentId":"a1b2c3d4","timestamp":"2026-03-01T10:00:00.002Z","thinkingLevel":"high"}`,
	"compaction":          `{"type":"compaction","id":"e5f6a7b8","parentId":"d4e5f6a7","timestamp":"2026-03-01T10:00:04.000Z","summary":"## Goal\nx","firstKeptEntryId":"c3d4e5f6","tokensBefore":12345,"details":{"readFiles":["a.go"],"modifiedFiles":[]}}`,
	"compaction_hook":     `{"type":"compaction","id":"e5f6a7b9","parentId":"d4e5f6a7","timestamp":"2026-03-01T10:00:04.000Z","summary":"s","firstKeptEntryId":"c3d4e5f6","tokensBefore":1,"fromHook":true}`,
	"branch_summary":      `{"type":"branch_summary","id":"f6a7b8c9","parentId":"b2c3d4e5","timestamp":"2026-03-01T10:00:05.000Z","fromId":"d4e5f6a7","summary":"tried X","details":{"readFiles":[],"modifiedFiles":[]},"fromHook":false}`,
	"branch_summary_root": `{"type":"branch_summary","id":"f6a7b8ca","parentId":null,"timestamp":"2026-03-01T10:00:05.000Z","fromId":"root","summary":"tried Y"}`,
	"custom":              `{"type":"custom","customType":"my-ext","data":{"k":[1,2]},"id":"a7b8c9d0","parentId":"f6a7b8c9","timestamp":"2026-03-01T10:00:06.000Z"}`,
	"custom_nodata":       `{"type":"custom","customType":"my-ext","id":"a7b8c9d1","parentId":"f6a7b8c9","timestamp":"2026-03-01T10:00:06.000Z"}`,
	"custom_message":      `{"type":"custom_message","customType":"note","content":"remember this","display":true,"id":"b8c9d0e1","parentId":"a7b8c9d0","timestamp":"2026-03-01T10:00:07.000Z"}`,
	"custom_message_arr":  `{"type":"custom_message","customType":"note","content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"display":false,"details":{"x":1},"id":"b8c9d0e2","parentId":"a7b8c9d0","timestamp":"2026-03-01T10:00:07.000Z"}`,
	"label":               `{"type":"label","id":"c9d0e1f2","parentId":"b8c9d0e1","timestamp":"2026-03-01T10:00:08.000Z","targetId":"b2c3d4e5","label":"start"}`,
	"label_clear":         `{"type":"label","id":"c9d0e1f3","parentId":"c9d0e1f2","timestamp":"2026-03-01T10:00:09.000Z","targetId":"b2c3d4e5"}`,
	"session_info":        `{"type":"session_info","id":"d0e1f2a3","parentId":"c9d0e1f3","timestamp":"2026-03-01T10:00:10.000Z","name":"my session"}`,
}

// Each pi-written entry type reads and writes back byte for byte.
func TestEntryRoundTripPiBytes(t *testing.T) {
	t.Parallel()
	for name, line := range piLines {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var e Entry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			got, err := e.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != line {
				t.Errorf("round trip changed the line:\n got %s\nwant %s", got, line)
			}
			again, err := decodeEntry(got, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(e, again); diff != "" {
				t.Errorf("decode(encode(e)) differs: %s", diff)
			}
		})
	}
}

// Unknown types and unknown fields survive as the same JSON values.
func TestEntryRoundTripUnknown(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"unknown type":          `{"type":"future_thing","id":"0000aaaa","parentId":null,"timestamp":"t","payload":{"deep":[1,{"a":null}]},"n":1.5e3}`,
		"unknown entry field":   `{"type":"model_change","id":"0000aaab","parentId":"0000aaaa","timestamp":"t","provider":"p","modelId":"m","zz":true,"aa":"x"}`,
		"unknown message field": `{"type":"message","id":"0000aaac","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"x","cache":{"ttl":1}}],"timestamp":1,"meta":{"a":1}}}`,
		// pkg/ai writes the fields of other roles in sorted order.
		"bash execution": `{"type":"message","id":"d4e5f6a8","parentId":"c3d4e5f6","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"bashExecution","command":"ls","output":"a.go","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1772359203000}}`,
		"unknown role":   `{"type":"message","id":"0000aaad","parentId":null,"timestamp":"t","message":{"role":"weird","stuff":[1,2,3]}}`,
	}
	for name, line := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var e Entry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			got, err := e.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, []byte(line)) {
				t.Errorf("value changed:\n got %s\nwant %s", got, line)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return cmp.Equal(x, y)
}
