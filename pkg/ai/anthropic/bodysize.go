package anthropic

import (
	"gopi/internal/pijson"
)

// This file measures what body.go writes for a message without writing
// it: strings are measured by pijson.QuotedLen, and only the parts whose
// length needs them written (raw JSON, which is compacted, and blocks of
// other types) are encoded, into a scratch buffer. A streamed body is
// measured so, for its Content-Length, and encoded once, as it is sent.
// A block's long text that measures as its own length plus the quotes is
// written as it is (AppendString changes no byte of it: every change it
// makes lengthens the output); the block records that for the writer.

// messageLen is the length appendMessage writes for message i, with the
// comma before it.
func (r *request) messageLen(i int, scratch *[]byte) (int, error) {
	n := 0
	if i > 0 {
		n++
	}
	m := &r.Messages[i]
	c, err := blocksLen(m.Content, scratch)
	return n + len(`{"role":`) + pijson.QuotedLen(m.Role) + len(`,"content":`) + c + len(`}`), err
}

func blocksLen(vs []any, scratch *[]byte) (int, error) {
	if vs == nil {
		return len("null"), nil
	}
	n := len("[]") + max(len(vs)-1, 0)
	for _, v := range vs {
		var m int
		var err error
		switch v := v.(type) {
		case *textBlock:
			m = v.len()
		case *imageBlock:
			m = v.len()
		case *thinkingBlock:
			m = v.len()
		case *redactedBlock:
			m = v.len()
		case *toolUseBlock:
			m, err = v.len(scratch)
		case *toolResultBlock:
			m, err = v.len(scratch)
		default:
			var b []byte
			b, err = pijson.AppendMarshal((*scratch)[:0], v)
			m, *scratch = len(b), b
		}
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

func (t *textBlock) len() int {
	if t == nil {
		return len("null")
	}
	text := pijson.QuotedLen(t.Text)
	t.plain = text == len(t.Text)+2
	return len(`{"type":`) + pijson.QuotedLen(t.Type) + len(`,"text":`) + text + ccLen(t.CacheControl) + len(`}`)
}

func (im *imageBlock) len() int {
	if im == nil {
		return len("null")
	}
	return len(`{"type":`) + pijson.QuotedLen(im.Type) + len(`,"source":{"type":`) + pijson.QuotedLen(im.Source.Type) +
		len(`,"media_type":`) + pijson.QuotedLen(im.Source.MediaType) + len(`,"data":`) + pijson.QuotedLen(im.Source.Data) +
		len(`}`) + ccLen(im.CacheControl) + len(`}`)
}

func (t *thinkingBlock) len() int {
	if t == nil {
		return len("null")
	}
	thinking := pijson.QuotedLen(t.Thinking)
	t.plain = thinking == len(t.Thinking)+2
	return len(`{"type":`) + pijson.QuotedLen(t.Type) + len(`,"thinking":`) + thinking +
		len(`,"signature":`) + pijson.QuotedLen(t.Signature) + len(`}`)
}

func (r *redactedBlock) len() int {
	if r == nil {
		return len("null")
	}
	return len(`{"type":`) + pijson.QuotedLen(r.Type) + len(`,"data":`) + pijson.QuotedLen(r.Data) + len(`}`)
}

func (t *toolUseBlock) len(scratch *[]byte) (int, error) {
	if t == nil {
		return len("null"), nil
	}
	b, err := pijson.AppendRaw((*scratch)[:0], t.Input)
	if err != nil {
		return 0, err
	}
	*scratch = b
	return len(`{"type":`) + pijson.QuotedLen(t.Type) + len(`,"id":`) + pijson.QuotedLen(t.ID) + len(`,"name":`) +
		pijson.QuotedLen(t.Name) + len(`,"input":`) + len(b) + len(`}`), nil
}

func (t *toolResultBlock) len(scratch *[]byte) (int, error) {
	if t == nil {
		return len("null"), nil
	}
	n := len(`{"type":`) + pijson.QuotedLen(t.Type) + len(`,"tool_use_id":`) + pijson.QuotedLen(t.ToolUseID)
	if len(t.Content) > 0 {
		c, err := blocksLen(t.Content, scratch)
		if err != nil {
			return 0, err
		}
		n += len(`,"content":`) + c
	}
	if t.IsError {
		n += len(`,"is_error":true`)
	}
	return n + ccLen(t.CacheControl) + len(`}`), nil
}

func ccLen(cc *cacheControl) int {
	if cc == nil {
		return 0
	}
	return len(`,"cache_control":{"type":`) + pijson.QuotedLen(cc.Type) + len(`}`)
}
