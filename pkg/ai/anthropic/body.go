package anthropic

import (
	"strconv"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// This file writes a request as encoding/json would write the structs of
// request.go (fields in struct order, omitempty as tagged, raw JSON
// validated and compacted), except that strings are not HTML-escaped and
// are quoted by ai.AppendJSONString. A resumed session's body runs to
// megabytes, so it is written into one buffer sized by a cheap estimate,
// with no reflection and no intermediate copies.

// encode returns the request body.
func (r *request) encode() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, r.size()))
}

func (r *request) size() int {
	n := len(`{"model":,"max_tokens":,"system":[],"messages":[],"tools":[],"tool_choice":{"type":,"name":},"thinking":{"type":,"budget_tokens":},`+
		`"output_config":{"effort":},"temperature":,"stream":false}`) + provider.QuotedSize(r.Model) + 3*provider.NumSize
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
		n += provider.QuotedSize(r.ToolChoice.Type) + provider.QuotedSize(r.ToolChoice.Name)
	}
	if r.Thinking != nil {
		n += provider.QuotedSize(r.Thinking.Type)
	}
	if r.OutputConfig != nil {
		n += provider.QuotedSize(r.OutputConfig.Effort)
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
	b = ai.AppendJSONString(b, r.Model)
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
		b = append(b, `,"tools":[`...)
		for i := range r.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = r.Tools[i].appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if c := r.ToolChoice; c != nil {
		b = append(b, `,"tool_choice":{"type":`...)
		b = ai.AppendJSONString(b, c.Type)
		if c.Name != "" {
			b = append(b, `,"name":`...)
			b = ai.AppendJSONString(b, c.Name)
		}
		b = append(b, '}')
	}
	if t := r.Thinking; t != nil {
		b = append(b, `,"thinking":{"type":`...)
		b = ai.AppendJSONString(b, t.Type)
		if t.BudgetTokens != 0 {
			b = append(b, `,"budget_tokens":`...)
			b = strconv.AppendInt(b, int64(t.BudgetTokens), 10)
		}
		b = append(b, '}')
	}
	if r.OutputConfig != nil {
		b = append(b, `,"output_config":{"effort":`...)
		b = ai.AppendJSONString(b, r.OutputConfig.Effort)
		b = append(b, '}')
	}
	if r.Temperature != nil {
		b = append(b, `,"temperature":`...)
		if b, err = provider.AppendFloat(b, *r.Temperature); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, r.Stream)
	return append(b, '}'), nil
}

func (m *message) size() int {
	return len(`{"role":,"content":}`) + provider.QuotedSize(m.Role) + blocksSize(m.Content)
}

func (m *message) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = ai.AppendJSONString(b, m.Role)
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
			b, err = provider.AppendMarshal(b, v)
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
	return len(`{"type":,"thinking":,"signature":}`) + provider.QuotedSize(t.Type) + provider.QuotedSize(t.Thinking) + provider.QuotedSize(t.Signature)
}

func (t *thinkingBlock) appendJSON(b []byte) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = ai.AppendJSONString(b, t.Type)
	b = append(b, `,"thinking":`...)
	b = ai.AppendJSONString(b, t.Thinking)
	b = append(b, `,"signature":`...)
	b = ai.AppendJSONString(b, t.Signature)
	return append(b, '}')
}

func (r *redactedBlock) size() int {
	if r == nil {
		return len("null")
	}
	return len(`{"type":,"data":}`) + provider.QuotedSize(r.Type) + provider.QuotedSize(r.Data)
}

func (r *redactedBlock) appendJSON(b []byte) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = ai.AppendJSONString(b, r.Type)
	b = append(b, `,"data":`...)
	b = ai.AppendJSONString(b, r.Data)
	return append(b, '}')
}

func (t *toolUseBlock) size() int {
	if t == nil {
		return len("null")
	}
	return len(`{"type":,"id":,"name":,"input":null}`) + provider.QuotedSize(t.Type) + provider.QuotedSize(t.ID) + provider.QuotedSize(t.Name) + len(t.Input)
}

func (t *toolUseBlock) appendJSON(b []byte) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"type":`...)
	b = ai.AppendJSONString(b, t.Type)
	b = append(b, `,"id":`...)
	b = ai.AppendJSONString(b, t.ID)
	b = append(b, `,"name":`...)
	b = ai.AppendJSONString(b, t.Name)
	b = append(b, `,"input":`...)
	b, err := provider.AppendRaw(b, t.Input)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func ccSize(cc *cacheControl) int {
	if cc == nil {
		return 0
	}
	return len(`,"cache_control":{"type":}`) + provider.QuotedSize(cc.Type)
}

// appendCC writes the cache_control field, if any.
func appendCC(b []byte, cc *cacheControl) []byte {
	if cc == nil {
		return b
	}
	b = append(b, `,"cache_control":{"type":`...)
	b = ai.AppendJSONString(b, cc.Type)
	return append(b, '}')
}

func (t *textBlock) size() int {
	if t == nil {
		return len("null")
	}
	return len(`{"type":,"text":}`) + provider.QuotedSize(t.Type) + provider.QuotedSize(t.Text) + ccSize(t.CacheControl)
}

func (t *textBlock) appendJSON(b []byte) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = ai.AppendJSONString(b, t.Type)
	b = append(b, `,"text":`...)
	b = ai.AppendJSONString(b, t.Text)
	b = appendCC(b, t.CacheControl)
	return append(b, '}')
}

func (im *imageBlock) size() int {
	if im == nil {
		return len("null")
	}
	return len(`{"type":,"source":{"type":,"media_type":,"data":}}`) + provider.QuotedSize(im.Type) +
		provider.QuotedSize(im.Source.Type) + provider.QuotedSize(im.Source.MediaType) + provider.QuotedSize(im.Source.Data) + ccSize(im.CacheControl)
}

func (im *imageBlock) appendJSON(b []byte) []byte {
	if im == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"type":`...)
	b = ai.AppendJSONString(b, im.Type)
	b = append(b, `,"source":{"type":`...)
	b = ai.AppendJSONString(b, im.Source.Type)
	b = append(b, `,"media_type":`...)
	b = ai.AppendJSONString(b, im.Source.MediaType)
	b = append(b, `,"data":`...)
	b = ai.AppendJSONString(b, im.Source.Data)
	b = append(b, '}')
	b = appendCC(b, im.CacheControl)
	return append(b, '}')
}

func (t *toolResultBlock) size() int {
	if t == nil {
		return len("null")
	}
	return len(`{"type":,"tool_use_id":,"content":,"is_error":true}`) + provider.QuotedSize(t.Type) + provider.QuotedSize(t.ToolUseID) +
		blocksSize(t.Content) + ccSize(t.CacheControl)
}

func (t *toolResultBlock) appendJSON(b []byte) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"type":`...)
	b = ai.AppendJSONString(b, t.Type)
	b = append(b, `,"tool_use_id":`...)
	b = ai.AppendJSONString(b, t.ToolUseID)
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
	return len(`{"name":,"description":,"input_schema":}`) + provider.QuotedSize(t.Name) + provider.QuotedSize(t.Description) + len(t.InputSchema) + len("null")
}

func (t *tool) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = ai.AppendJSONString(b, t.Name)
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = ai.AppendJSONString(b, t.Description)
	}
	b = append(b, `,"input_schema":`...)
	b, err := provider.AppendRaw(b, t.InputSchema)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}
