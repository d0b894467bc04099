package anthropic

import (
	"gopi/internal/pijson"
	"strings"
)

// deltaForms are the compact content_block_delta events the API streams
// for text, thinking and tool-call arguments, cut around the index and
// the value: {"type":"content_block_delta","index":N,"delta":{"type":T,F:"…"}}
// (with any white space before the last brace).
var deltaForms = [...]struct {
	mid  string // from after the index to the value's opening quote
	kind string
}{
	{`,"delta":{"type":"text_delta","text":`, "text_delta"},
	{`,"delta":{"type":"thinking_delta","thinking":`, "thinking_delta"},
	{`,"delta":{"type":"input_json_delta","partial_json":`, "input_json_delta"},
}

const deltaPrefix = `{"type":"content_block_delta","index":`

// fastDelta decodes a delta event of a long answer, nearly all of its
// events, without encoding/json's reflection: only the exact compact
// forms of deltaForms, with an index of plain digits and a value that is
// one valid JSON string, which leave nothing for encoding/json to decide
// differently. Anything else reports ok false and takes json.Unmarshal's
// path, as every other event does.
func fastDelta(data string) (e streamEvent, dl deltaBody, ok bool) {
	rest, found := strings.CutPrefix(data, deltaPrefix)
	if !found {
		return e, dl, false
	}
	n := 0
	for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
		e.Index = e.Index*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || (n > 1 && rest[0] == '0') {
		return e, dl, false
	}
	rest = rest[n:]
	for _, f := range deltaForms {
		val, found := strings.CutPrefix(rest, f.mid)
		if !found {
			continue
		}
		// The API pads some events with spaces before the last brace.
		val, found = strings.CutSuffix(val, "}")
		if found {
			val, found = strings.CutSuffix(strings.TrimRight(val, " \t\r\n"), "}")
		}
		if !found || len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
			return e, dl, false
		}
		s, err := pijson.Unquote([]byte(val))
		if err != nil {
			return e, dl, false
		}
		dl.Type = f.kind
		switch f.kind {
		case "text_delta":
			dl.Text = s
		case "thinking_delta":
			dl.Thinking = s
		default:
			dl.PartialJSON = s
		}
		e.Type = "content_block_delta"
		return e, dl, true
	}
	return e, dl, false
}
