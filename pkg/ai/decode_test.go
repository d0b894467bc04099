package ai

import (
	"encoding/json"
	"gopi/internal/pijson"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var decodeSeeds = []string{
	`{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1772359201000}`,
	`{"role":"user","content":"plain \u003c\u2028 \ud83d\ude00","timestamp":1}`,
	`{"role":"user","content":null,"role":"assistant","usage":{"input":1}}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig","redacted":true},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.go"}}],"api":"a","provider":"p","model":"m","usage":{"input":10,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":13,"cost":{"input":0.1,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.1}},"stopReason":"toolUse","timestamp":2,"responseId":"r"}`,
	`{"role":"toolResult","content":[{"type":"x","text":"a"}],"details":null,"isError":true}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[{"type":"image","data":"AA==","mimeType":"image/png","k":[1]}],"details":{"d":1},"isError":false,"timestamp":5}`,
	`{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"timestamp":8}`,
	`{"role":"custom","customType":"note","content":"n","model":"kept","usage":{"odd":true},"timestamp":9}`,
	`{"role":"user","content":[null,{"type":"text","text":"\ud800\u00e9","text":"b"}],"timestamp":1e3}`,
	"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}],\"\xfe\":1}",
	`null`,
	` {"role" : "user" , "content" : [ ] } `,
	`{"role":"assistant","usage":{"Input":1,"output":null,"cost":{"total":1e400}}}`,
	`{"role":"assistant","usage":{"input":1.5,"cost":null,"cost":{"input":1,"input":"x"}}}`,
	`{"role":"assistant","usage":{"input":1,"cost":{"input":1},"cost":{"output":-0.5e-7}}}`,
	`{"role":"assistant","usage":{"inp\u0075t":2,"totalTokens":99999999999999999999}}`,
	`{"role":"assistant","usage":{"cost":[],"extra":true}}`,
	`{"role":"user","content":[{"type":"text","text":"a plain ascii text of more than sixteen bytes","type":"text"}]}`,
	`{"role":"user","content":[{"type":"text","text":"0123456789abcde\"0123456789abcdef\n","text":1}]}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"x","thinking":"y"},1,{"type":"text","text":"é 0123456789abcdef"}]}`,
	`{"role":"assistant","content":[{"type":"text","text":"0123456789abcdef","mimeType":"0123456789abcdef0123","zz":"0123456789abcdef"},{"type":"odd","text":"0123456789abcdef"}]}`,
	`{"role":"user","content":[{"type":"text","text":"0123456789abcdef\ud83d\ude00 \ud800"},{"type":"text","text":"unterminated 0123456789abcdef}]}`,
}

// The fast decoder agrees with the reference decoding: same message, or
// both an error.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := refDecodeMessage(data)
		var got Message
		gerr := json.Unmarshal(data, &got)
		direct, derr := decodeUnchecked(data)
		raw, verr := pijson.Validate(data)
		var valid Message
		if verr == nil {
			valid, verr = DecodeMessage(raw)
		}
		if (werr == nil) != (gerr == nil) || (werr == nil) != (derr == nil) || (werr == nil) != (verr == nil) {
			t.Fatalf("reference: %v, json.Unmarshal: %v, UnmarshalJSON: %v, DecodeMessage: %v", werr, gerr, derr, verr)
		}
		if werr != nil {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("json.Unmarshal differs from the reference: %s", diff)
		}
		if diff := cmp.Diff(want, direct); diff != "" {
			t.Fatalf("UnmarshalJSON differs from the reference: %s", diff)
		}
		if diff := cmp.Diff(want, valid); diff != "" {
			t.Fatalf("DecodeMessage of the validated value differs from the reference: %s", diff)
		}
	})
}

// A block decoded alone agrees with the reference too.
func FuzzDecodeContent(f *testing.F) {
	for _, s := range []string{`{"type":"text","text":"a","zz":1}`, `{"type":"audio","data":"A"}`, `null`, `{"type":"toolCall","arguments":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := refDecodeContent(data)
		var got Content
		gerr := got.UnmarshalJSON(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("reference: %v, fast: %v", werr, gerr)
		}
		if werr == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("decoders differ: %s", diff)
			}
		}
	})
}

func TestDecodeMessageRejectsMalformedInput(t *testing.T) {
	cases := map[string]string{
		"empty":                 ``,
		"not an object":         `[1]`,
		"string":                `"user"`,
		"truncated":             `{"role":"user","content":[{"type":"text","text":"hi"}`,
		"trailing data":         `{"role":"user"} x`,
		"trailing comma":        `{"role":"user",}`,
		"bad literal":           `{"role":"user","isError":tru}`,
		"bad escape":            `{"role":"user","content":"\x"}`,
		"short unicode escape":  `{"role":"user","content":"\u12"}`,
		"control character":     "{\"role\":\"user\",\"content\":\"a\nb\"}",
		"unterminated string":   `{"role":"user","content":"abc`,
		"bad number":            `{"role":"user","timestamp":01}`,
		"role not a string":     `{"role":1}`,
		"content a number":      `{"role":"user","content":7}`,
		"content an object":     `{"role":"user","content":{}}`,
		"block not an object":   `{"role":"user","content":[1]}`,
		"block field wrong":     `{"role":"user","content":[{"type":"text","text":5}]}`,
		"redacted not a bool":   `{"role":"assistant","content":[{"type":"thinking","redacted":"yes"}]}`,
		"timestamp a float":     `{"role":"user","timestamp":1.5}`,
		"timestamp a string":    `{"role":"user","timestamp":"1"}`,
		"usage a string":        `{"role":"assistant","usage":"x"}`,
		"usage field wrong":     `{"role":"assistant","usage":{"input":"1"}}`,
		"isError not a bool":    `{"role":"toolResult","isError":1}`,
		"unknown role bad time": `{"role":"custom","timestamp":"x"}`,
		"too deep":              `{"role":"user","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if raw, err := pijson.Validate([]byte(src)); err == nil {
				if _, err := DecodeMessage(raw); err == nil {
					t.Errorf("DecodeMessage(%s): want error", src)
				}
			}
			var m Message
			if err := m.UnmarshalJSON([]byte(src)); err == nil {
				t.Errorf("UnmarshalJSON(%s): want error", src)
			}
			if _, werr := refDecodeMessage([]byte(src)); werr == nil {
				t.Errorf("the reference accepts %s", src)
			}
		})
	}
}

// decodeContentBytes validates v, then decodes it as content.
func decodeContentBytes(v []byte) ([]Content, bool, error) {
	raw, err := pijson.Validate(v)
	if err != nil {
		return nil, false, err
	}
	return DecodeContent(raw)
}

func TestDecodeContentStringOrBlocks(t *testing.T) {
	cases := []struct {
		src      string
		want     []Content
		isString bool
	}{
		{`"hi"`, []Content{TextContent("hi")}, true},
		{`null`, []Content{TextContent("")}, true},
		{`[]`, []Content{}, false},
		{`[{"type":"text","text":"a"}]`, []Content{TextContent("a")}, false},
	}
	for _, c := range cases {
		got, isString, err := decodeContentBytes([]byte(c.src))
		if err != nil || isString != c.isString || !cmp.Equal(got, c.want) {
			t.Errorf("DecodeContent(%s) = %v, %v, %v", c.src, got, isString, err)
		}
	}
	for _, src := range []string{`7`, `{}`, `[1]`, `"a`, `[] x`} {
		if _, _, err := decodeContentBytes([]byte(src)); err == nil {
			t.Errorf("DecodeContent(%s): want error", src)
		}
	}
}

// Regression: the scanner restarted its depth count at every field value,
// so it accepted nesting encoding/json rejects.
func TestNestingLimitMatchesEncodingJSON(t *testing.T) {
	for _, n := range []int{9998, 9999, 10000} {
		src := []byte(`{"role":"user","x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		_, err := decodeUnchecked(src)
		_, werr := refDecodeMessage(src)
		if (err == nil) != (werr == nil) {
			t.Errorf("depth %d: fast %v, reference %v", n+1, err, werr)
		}
	}
}
