package ai

import (
	"encoding/json"
	"testing"
)

func decodeMessages(t *testing.T, src string) []Message {
	t.Helper()
	var ms []Message
	if err := json.Unmarshal([]byte(src), &ms); err != nil {
		t.Fatal(err)
	}
	return ms
}

func encodeMessages(t *testing.T, ms []Message) string {
	t.Helper()
	b, err := json.Marshal(ms)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	png  = `{"type":"image","data":"iVBORw0=","mimeType":"image/png"}`
	user = `{"type":"text","text":"(image omitted: model does not support images)"}`
	tool = `{"type":"text","text":"(tool image omitted: model does not support images)"}`
)

// A model that takes no images is sent each run of images as one text
// saying so: the user's wording in user messages, the tool's in tool
// results; assistant messages are sent as they are, and the messages
// given are left unchanged.
func TestWithoutImagesReplacesEachRunOfImages(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"consecutive images in a user message become one text",
			`[{"role":"user","content":[{"type":"text","text":"see"},` + png + `,` + png + `,` + png + `],"timestamp":1}]`,
			`[{"role":"user","content":[{"type":"text","text":"see"},` + user + `],"timestamp":1}]`},
		{"images between texts: one text per run",
			`[{"role":"user","content":[` + png + `,{"type":"text","text":"and"},` + png + `,` + png + `,{"type":"text","text":"end"}],"timestamp":1}]`,
			`[{"role":"user","content":[` + user + `,{"type":"text","text":"and"},` + user + `,{"type":"text","text":"end"}],"timestamp":1}]`},
		{"a tool result's images get the tool's text, its other fields kept",
			`[{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"Read image file [image/png]"},` + png + `],"details":{"x":1},"isError":false,"timestamp":2}]`,
			`[{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"Read image file [image/png]"},` + tool + `],"details":{"x":1},"isError":false,"timestamp":2}]`},
		{"an image right after the placeholder adds nothing",
			`[{"role":"user","content":[` + user + `,` + png + `,{"type":"text","text":"x"}],"timestamp":1}]`,
			`[{"role":"user","content":[` + user + `,{"type":"text","text":"x"}],"timestamp":1}]`},
		{"the other message's placeholder is no placeholder",
			`[{"role":"toolResult","toolCallId":"c1","toolName":"t","content":[` + user + `,` + png + `],"isError":false,"timestamp":2}]`,
			`[{"role":"toolResult","toolCallId":"c1","toolName":"t","content":[` + user + `,` + tool + `],"isError":false,"timestamp":2}]`},
		{"assistant and custom messages are untouched; the others replaced in place",
			`[{"role":"user","content":[` + png + `],"timestamp":1},` +
				`{"role":"assistant","content":[` + png + `],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2},` +
				`{"role":"custom","customType":"note","content":[` + png + `],"display":true,"timestamp":3},` +
				`{"role":"toolResult","toolCallId":"c1","toolName":"t","content":[` + png + `],"isError":true,"timestamp":4}]`,
			`[{"role":"user","content":[` + user + `],"timestamp":1},` +
				`{"role":"assistant","content":[` + png + `],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2},` +
				`{"role":"custom","customType":"note","content":[` + png + `],"display":true,"timestamp":3},` +
				`{"role":"toolResult","toolCallId":"c1","toolName":"t","content":[` + tool + `],"isError":true,"timestamp":4}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := decodeMessages(t, c.in)
			got := WithoutImages(in)
			if !jsonEqual(t, c.want, encodeMessages(t, got)) {
				t.Fatalf("sent\n %s\nwant\n %s", encodeMessages(t, got), c.want)
			}
			if !jsonEqual(t, c.in, encodeMessages(t, in)) {
				t.Fatalf("the messages given changed:\n %s\nwere\n %s", encodeMessages(t, in), c.in)
			}
			if &got[0] == &in[0] {
				t.Fatal("the caller's slice was returned though an image was replaced")
			}
		})
	}
}

// Messages without an image to replace come back as the same slice:
// nothing is copied for a request that needs no change.
func TestWithoutImagesKeepsMessagesWithoutImages(t *testing.T) {
	in := decodeMessages(t, `[{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1},`+
		`{"role":"assistant","content":[`+png+`],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}]`)
	got := WithoutImages(in)
	if len(got) != len(in) || &got[0] != &in[0] {
		t.Fatal("messages without a user's or tool's image were copied")
	}
	if WithoutImages(nil) != nil {
		t.Fatal("no messages became some")
	}
}
