package anthropic

import (
	"gopi/internal/pijson"
	"strconv"
)

// This file writes a request as encoding/json would write the structs of
// request.go (fields in struct order, omitempty as tagged, raw JSON
// validated and compacted), except that strings are not HTML-escaped and
// are quoted by pijson.AppendString. A resumed session's body runs to
// megabytes, so it is written into one buffer sized by a cheap estimate,
// with no reflection and no intermediate copies.

// encode returns the request body.
func (r *request) encode() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, r.size()))
}

func (r *request) size() int {
	n := len(`{"model":,"max_tokens":,"system":[],"messages":[],"tools":[],"tool_choice":{"type":,"name":},"thinking":{"type":,"budget_tokens":},`+
		`"output_config":{"effort":},"temperature":,"stream":false}`) + pijson.QuotedSize(r.Model) + 3*pijson.NumSize
	for _, t := range r.System {
		n += t.size() + 1
	}
	for i := range r.Messages {
		n += r.Messages[i].size() + 1
	}
	for i := range r.Tools {
		n += r.Tools[i].size() + 1
	}
	if r.ToolChoice != nil {
		n += pijson.QuotedSize(r.ToolChoice.Type) + pijson.QuotedSize(r.ToolChoice.Name)
	}
	if r.Thinking != nil {
		n += pijson.QuotedSize(r.Thinking.Type)
	}
	if r.OutputConfig != nil {
		n += pijson.QuotedSize(r.OutputConfig.Effort)
	}
	return n
}

func (r *request) appendJSON(b []byte) ([]byte, error) {
	b = r.appendHead(b)
	var err error
	for i := range r.Messages {
		if b, err = r.appendMessage(b, i); err != nil {
			return nil, err
		}
	}
	return r.appendTail(b)
}

// appendHead writes the body up to the first message: the fields before
// "messages" and the opening of its array.
func (r *request) appendHead(b []byte) []byte {
	b = append(b, `{"model":`...)
	b = pijson.AppendString(b, r.Model)
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(r.MaxTokens), 10)
	if len(r.System) > 0 {
		b = append(b, `,"system":[`...)
		for i, t := range r.System {
			if i > 0 {
				b = append(b, ',')
			}
			b = t.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"messages":`...)
	if r.Messages == nil {
		return append(b, "null"...)
	}
	return append(b, '[')
}

// appendMessage writes message i with the comma before it.
func (r *request) appendMessage(b []byte, i int) ([]byte, error) {
	if i > 0 {
		b = append(b, ',')
	}
	return r.Messages[i].appendJSON(b)
}

// appendTail writes the body after the last message.
func (r *request) appendTail(b []byte) ([]byte, error) {
	var err error
	if r.Messages != nil {
		b = append(b, ']')
	}
	if len(r.Tools) > 0 {
		if b, err = pijson.AppendArray(append(b, `,"tools":`...), r.Tools, (*tool).appendJSON); err != nil {
			return nil, err
		}
	}
	if c := r.ToolChoice; c != nil {
		b = append(b, `,"tool_choice":{"type":`...)
		b = pijson.AppendString(b, c.Type)
		if c.Name != "" {
			b = append(b, `,"name":`...)
			b = pijson.AppendString(b, c.Name)
		}
		b = append(b, '}')
	}
	if t := r.Thinking; t != nil {
		b = append(b, `,"thinking":{"type":`...)
		b = pijson.AppendString(b, t.Type)
		if t.BudgetTokens != 0 {
			b = append(b, `,"budget_tokens":`...)
			b = strconv.AppendInt(b, int64(t.BudgetTokens), 10)
		}
		b = append(b, '}')
	}
	if r.OutputConfig != nil {
		b = append(b, `,"output_config":{"effort":`...)
		b = pijson.AppendString(b, r.OutputConfig.Effort)
		b = append(b, '}')
	}
	if r.Temperature != nil {
		b = append(b, `,"temperature":`...)
		if b, err = pijson.AppendFloat(b, *r.Temperature); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, r.Stream)
	return append(b, '}'), nil
}

func (m *message) size() int {
	return len(`{"role":,"content":}`) + pijson.QuotedSize(m.Role) + blocksSize(m.Content)
}

func (m *message) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = pijson.AppendString(b, m.Role)
	b = append(b, `,"content":`...)
	b, err := appendBlocks(b, m.Content)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// blocksSize and appendBlocks handle content: the block types of
// request.go, anything else through encoding/json.
func blocksSize(vs []any) int {
	n := len(`[]`)
	for _, v := range vs {
		n++
		if s, ok := v.(interface{ size() int }); ok {
			n += s.size()
		} else {
			n += 64
		}
	}
	return n
}

func appendBlocks(b []byte, vs []any) ([]byte, error) {
	if vs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		switch v := v.(type) {
		case *textBlock:
			b = v.appendJSON(b)
		case *imageBlock:
			b = v.appendJSON(b)
		case *thinkingBlock:
			b = v.appendJSON(b)
		case *redactedBlock:
			b = v.appendJSON(b)
		case *toolUseBlock:
			b, err = v.appendJSON(b)
		case *toolResultBlock:
			b, err = v.appendJSON(b)
		default:
			b, err = pijson.AppendMarshal(b, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func (t *thinkingBlock) size() int {
	if t == nil {
		return len("null")
	}
	return len(`{"type":,"thinking":,"signature":}`) + pijson.QuotedSize(t.Type) + pijson.QuotedSize(t.Thinking) + pijson.QuotedSize(t.Signature)
}

func (t *thinkingBlock) appendJSON(b []byte) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, t.Type)
	b = append(b, `,"thinking":`...)
	b = appendText(b, t.Thinking, t.plain)
	b = append(b, `,"signature":`...)
	b = pijson.AppendString(b, t.Signature)
	return append(b, '}')
}

func (r *redactedBlock) size() int {
	if r == nil {
		return len("null")
	}
	return len(`{"type":,"data":}`) + pijson.QuotedSize(r.Type) + pijson.QuotedSize(r.Data)
}

func (r *redactedBlock) appendJSON(b []byte) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, r.Type)
	b = append(b, `,"data":`...)
	b = pijson.AppendString(b, r.Data)
	return append(b, '}')
}

func (t *toolUseBlock) size() int {
	if t == nil {
		return len("null")
	}
	return len(`{"type":,"id":,"name":,"input":null}`) + pijson.QuotedSize(t.Type) + pijson.QuotedSize(t.ID) + pijson.QuotedSize(t.Name) + len(t.Input)
}

func (t *toolUseBlock) appendJSON(b []byte) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, t.Type)
	b = append(b, `,"id":`...)
	b = pijson.AppendString(b, t.ID)
	b = append(b, `,"name":`...)
	b = pijson.AppendString(b, t.Name)
	b = append(b, `,"input":`...)
	b, err := pijson.AppendRaw(b, t.Input)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendText writes a block's text; plain says measuring found it needs
// no escape (bodysize.go).
func appendText(b []byte, s string, plain bool) []byte {
	if !plain {
		return pijson.AppendString(b, s)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func ccSize(cc *cacheControl) int {
	if cc == nil {
		return 0
	}
	return len(`,"cache_control":{"type":}`) + pijson.QuotedSize(cc.Type)
}

// appendCC writes the cache_control field, if any.
func appendCC(b []byte, cc *cacheControl) []byte {
	if cc == nil {
		return b
	}
	b = append(b, `,"cache_control":{"type":`...)
	b = pijson.AppendString(b, cc.Type)
	return append(b, '}')
}

func (t *textBlock) size() int {
	if t == nil {
		return len("null")
	}
	return len(`{"type":,"text":}`) + pijson.QuotedSize(t.Type) + pijson.QuotedSize(t.Text) + ccSize(t.CacheControl)
}

func (t *textBlock) appendJSON(b []byte) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, t.Type)
	b = append(b, `,"text":`...)
	b = appendText(b, t.Text, t.plain)
	b = appendCC(b, t.CacheControl)
	return append(b, '}')
}

func (im *imageBlock) size() int {
	if im == nil {
		return len("null")
	}
	return len(`{"type":,"source":{"type":,"media_type":,"data":}}`) + pijson.QuotedSize(im.Type) +
		pijson.QuotedSize(im.Source.Type) + pijson.QuotedSize(im.Source.MediaType) + pijson.QuotedSize(im.Source.Data) + ccSize(im.CacheControl)
}

func (im *imageBlock) appendJSON(b []byte) []byte {
	if im == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, im.Type)
	b = append(b, `,"source":{"type":`...)
	b = pijson.AppendString(b, im.Source.Type)
	b = append(b, `,"media_type":`...)
	b = pijson.AppendString(b, im.Source.MediaType)
	b = append(b, `,"data":`...)
	b = pijson.AppendString(b, im.Source.Data)
	b = append(b, '}')
	b = appendCC(b, im.CacheControl)
	return append(b, '}')
}

func (t *toolResultBlock) size() int {
	if t == nil {
		return len("null")
	}
	return len(`{"type":,"tool_use_id":,"content":,"is_error":true}`) + pijson.QuotedSize(t.Type) + pijson.QuotedSize(t.ToolUseID) +
		blocksSize(t.Content) + ccSize(t.CacheControl)
}

func (t *toolResultBlock) appendJSON(b []byte) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, t.Type)
	b = append(b, `,"tool_use_id":`...)
	b = pijson.AppendString(b, t.ToolUseID)
	if len(t.Content) > 0 {
		b = append(b, `,"content":`...)
		var err error
		if b, err = appendBlocks(b, t.Content); err != nil {
			return nil, err
		}
	}
	if t.IsError {
		b = append(b, `,"is_error":true`...)
	}
	b = appendCC(b, t.CacheControl)
	return append(b, '}'), nil
}

func (t *tool) size() int {
	return len(`{"name":,"description":,"input_schema":}`) + pijson.QuotedSize(t.Name) + pijson.QuotedSize(t.Description) + len(t.InputSchema) + len("null")
}

func (t *tool) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = pijson.AppendString(b, t.Name)
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = pijson.AppendString(b, t.Description)
	}
	b = append(b, `,"input_schema":`...)
	b, err := pijson.AppendRaw(b, t.InputSchema)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}
