package loop

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// AppendJSON appends what MarshalJSON returns to b.
func (e Event) AppendJSON(b []byte) ([]byte, error) {
	var enc Encoder
	return enc.Append(b, e)
}

// Encoder writes events as MarshalJSON does. A message_update carrying a
// delta, all but a handful of the events of a long answer, is written
// directly, without encoding/json's reflection and its second pass over a
// Marshaler's output, with the usage it carries encoded once for as long
// as it does not change; every other event goes through encoding/json.
// The zero Encoder is ready; it is not safe for concurrent use.
type Encoder struct {
	usage     ai.Usage
	usageJSON []byte // usage's encoding; nil until the first delta
}

// Append appends e's JSON to b.
func (c *Encoder) Append(b []byte, e Event) ([]byte, error) {
	if !e.plainDelta() {
		raw, err := pijson.Marshal(e.shape())
		return append(b, raw...), err
	}
	var usage ai.Usage
	if e.Stream.Usage != nil {
		usage = *e.Stream.Usage
	}
	if c.usageJSON == nil || c.usage != usage {
		u, err := pijson.Marshal(usage)
		if err != nil {
			return b, err
		}
		c.usage, c.usageJSON = usage, u
	}
	b = append(b, `{"type":"message_update","usage":`...)
	b = append(b, c.usageJSON...)
	b = append(b, `,"assistantMessageEvent":{"type":"`...)
	b = append(b, e.Stream.Type...)
	b = append(b, `","contentIndex":`...)
	b = strconv.AppendInt(b, int64(e.Stream.Index), 10)
	b = append(b, `,"delta":`...)
	b = pijson.AppendString(b, e.Stream.Delta)
	return append(b, "}}"...), nil
}

// plainDelta reports a message_update with a delta that pijson.AppendString
// quotes exactly as encoding/json does: it differs on invalid UTF-8
// (encoding/json writes the escape \ufffd) and on U+2028 and U+2029
// (escaped by encoding/json, not by JSON.stringify), which keep the
// encoding/json path so that the bytes never depend on the path taken.
func (e Event) plainDelta() bool {
	if e.Type != MessageUpdate || e.Stream == nil {
		return false
	}
	switch e.Stream.Type {
	case ai.EventTextDelta, ai.EventThinkingDelta, ai.EventToolCallDelta:
	default:
		return false
	}
	d := e.Stream.Delta
	return utf8.ValidString(d) && !strings.ContainsRune(d, '\u2028') && !strings.ContainsRune(d, '\u2029')
}
