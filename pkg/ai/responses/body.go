package responses

import (
	"gopi/internal/pijson"
	"strconv"
)

// This file writes a request as encoding/json would write the structs of
// request.go (fields in struct order, omitempty as tagged, raw JSON
// validated and compacted), except that strings are not HTML-escaped and
// are quoted by pijson.AppendString: the Chat Completions adapter's
// writer, for the Responses API's items. A resumed session's body runs to
// megabytes, so it is written into one buffer sized by a cheap estimate.

// encode returns the request body.
func (r *request) encode() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, r.size()))
}

func (r *request) size() int {
	n := len(`{"model":,"instructions":,"input":[],"stream":false,"store":false,"include":[],"max_output_tokens":,`+
		`"temperature":,"tools":[],"reasoning":{"effort":,"summary":}}`) + pijson.QuotedSize(r.Model) +
		pijson.QuotedSize(r.Instructions) + 2*pijson.NumSize
	for _, s := range r.Include {
		n += pijson.QuotedSize(s) + 1
	}
	if r.Reasoning != nil {
		n += pijson.QuotedSize(r.Reasoning.Effort) + pijson.QuotedSize(r.Reasoning.Summary)
	}
	if r.Text != nil {
		n += len(`,"text":{"format":{"type":"json_schema","name":,"schema":,"strict":false}}`) +
			pijson.QuotedSize(r.Text.Format.Name) + len(r.Text.Format.Schema)
	}
	for _, it := range r.Input {
		n += itemSize(it) + 1
	}
	for i := range r.Tools {
		n += r.Tools[i].size() + 1
	}
	return n
}

func (r *request) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"model":`...)
	b = pijson.AppendString(b, r.Model)
	if r.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = pijson.AppendString(b, r.Instructions)
	}
	b = append(b, `,"input":`...)
	if b, err = appendItems(b, r.Input); err != nil {
		return nil, err
	}
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, r.Stream)
	b = append(b, `,"store":`...)
	b = strconv.AppendBool(b, r.Store)
	if len(r.Include) > 0 {
		b = append(b, `,"include":[`...)
		for i, s := range r.Include {
			if i > 0 {
				b = append(b, ',')
			}
			b = pijson.AppendString(b, s)
		}
		b = append(b, ']')
	}
	if r.MaxOutputTokens != 0 {
		b = append(b, `,"max_output_tokens":`...)
		b = strconv.AppendInt(b, int64(r.MaxOutputTokens), 10)
	}
	if r.Temperature != nil {
		b = append(b, `,"temperature":`...)
		if b, err = pijson.AppendFloat(b, *r.Temperature); err != nil {
			return nil, err
		}
	}
	if len(r.Tools) > 0 {
		if b, err = pijson.AppendArray(append(b, `,"tools":`...), r.Tools, (*tool).appendJSON); err != nil {
			return nil, err
		}
	}
	if r.Reasoning != nil {
		b = r.Reasoning.appendJSON(append(b, `,"reasoning":`...))
	}
	if f := r.Text; f != nil {
		b = appendStrings(b, `,"text":{"format":{"type":`, f.Format.Type, `,"name":`, f.Format.Name)
		b = append(b, `,"schema":`...)
		if b, err = pijson.AppendRaw(b, f.Format.Schema); err != nil {
			return nil, err
		}
		b = append(b, `,"strict":`...)
		b = strconv.AppendBool(b, f.Format.Strict)
		b = append(b, "}}"...)
	}
	return append(b, '}'), nil
}

func (r *reasoning) appendJSON(b []byte) []byte {
	b = append(b, '{')
	if r.Effort != "" {
		b = append(b, `"effort":`...)
		b = pijson.AppendString(b, r.Effort)
	}
	if r.Summary != "" {
		if r.Effort != "" {
			b = append(b, ',')
		}
		b = append(b, `"summary":`...)
		b = pijson.AppendString(b, r.Summary)
	}
	return append(b, '}')
}

// appendItems writes a list of items or parts: nil as null, the types of
// request.go by hand, anything else through encoding/json.
func appendItems(b []byte, items []any) ([]byte, error) {
	if items == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendItem(b, it); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func appendItem(b []byte, it any) ([]byte, error) {
	switch v := it.(type) {
	case inputMessage:
		b = append(b, `{"role":`...)
		b = pijson.AppendString(b, v.Role)
		b = append(b, `,"content":`...)
		b, err := appendItems(b, v.Content)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case textPart:
		return v.appendJSON(b), nil
	case imagePart:
		b = appendStrings(b, `{"type":`, v.Type, `,"detail":`, v.Detail, `,"image_url":`, v.ImageURL)
		return append(b, '}'), nil
	case outputMessage:
		return v.appendJSON(b), nil
	case reasoningItem:
		return v.appendJSON(b), nil
	case functionCall:
		b = appendStrings(b, `{"type":`, v.Type)
		if v.ID != "" {
			b = appendStrings(b, `,"id":`, v.ID)
		}
		b = appendStrings(b, `,"call_id":`, v.CallID, `,"name":`, v.Name, `,"arguments":`, v.Arguments)
		return append(b, '}'), nil
	case functionOutput:
		b = appendStrings(b, `{"type":`, v.Type, `,"call_id":`, v.CallID, `,"output":`, v.Output)
		return append(b, '}'), nil
	}
	return pijson.AppendMarshal(b, it)
}

// appendStrings appends pairs of a literal and a string to quote.
func appendStrings(b []byte, pairs ...string) []byte {
	for i := 0; i+1 < len(pairs); i += 2 {
		b = append(b, pairs[i]...)
		b = pijson.AppendString(b, pairs[i+1])
	}
	return b
}

func (p *textPart) appendJSON(b []byte) []byte {
	return append(appendStrings(b, `{"type":`, p.Type, `,"text":`, p.Text), '}')
}

func (m *outputMessage) appendJSON(b []byte) []byte {
	b = appendStrings(b, `{"type":`, m.Type, `,"role":`, m.Role)
	b = append(b, `,"content":`...)
	if m.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range m.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStrings(b, `{"type":`, c.Type, `,"text":`, c.Text)
			b = append(b, `,"annotations":`...)
			b = appendEmptyObjects(b, c.Annotations)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendStrings(b, `,"status":`, m.Status, `,"id":`, m.ID)
	if m.Phase != "" {
		b = appendStrings(b, `,"phase":`, m.Phase)
	}
	return append(b, '}')
}

func appendEmptyObjects(b []byte, s []struct{}) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "{}"...)
	}
	return append(b, ']')
}

func (r *reasoningItem) appendJSON(b []byte) []byte {
	b = appendStrings(b, `{"type":`, r.Type, `,"id":`, r.ID)
	b = append(b, `,"summary":`...)
	if r.Summary == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Summary {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.Summary[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if r.EncryptedContent != "" {
		b = appendStrings(b, `,"encrypted_content":`, r.EncryptedContent)
	}
	return append(b, '}')
}

func (t *tool) size() int {
	return len(`{"type":,"name":,"description":,"parameters":null,"strict":false}`) + pijson.QuotedSize(t.Type) +
		pijson.QuotedSize(t.Name) + pijson.QuotedSize(t.Description) + len(t.Parameters)
}

func (t *tool) appendJSON(b []byte) ([]byte, error) {
	b = appendStrings(b, `{"type":`, t.Type, `,"name":`, t.Name)
	if t.Description != "" {
		b = appendStrings(b, `,"description":`, t.Description)
	}
	b = append(b, `,"parameters":`...)
	b, err := pijson.AppendRaw(b, t.Parameters)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"strict":`...)
	b = strconv.AppendBool(b, t.Strict)
	return append(b, '}'), nil
}

// itemSize estimates the length of an item as written.
func itemSize(it any) int {
	q := pijson.QuotedSize
	switch v := it.(type) {
	case inputMessage:
		n := len(`{"role":,"content":[]}`) + q(v.Role)
		for _, c := range v.Content {
			n += itemSize(c) + 1
		}
		return n
	case textPart:
		return len(`{"type":,"text":}`) + q(v.Type) + q(v.Text)
	case imagePart:
		return len(`{"type":,"detail":,"image_url":}`) + q(v.Type) + q(v.Detail) + q(v.ImageURL)
	case outputMessage:
		n := len(`{"type":,"role":,"content":[],"status":,"id":,"phase":}`) + q(v.Type) + q(v.Role) + q(v.Status) + q(v.ID) + q(v.Phase)
		for _, c := range v.Content {
			n += len(`{"type":,"text":,"annotations":[]},`) + q(c.Type) + q(c.Text) + 3*len(c.Annotations)
		}
		return n
	case reasoningItem:
		n := len(`{"type":,"id":,"summary":[],"encrypted_content":}`) + q(v.Type) + q(v.ID) + q(v.EncryptedContent)
		for _, s := range v.Summary {
			n += itemSize(s) + 1
		}
		return n
	case functionCall:
		return len(`{"type":,"id":,"call_id":,"name":,"arguments":}`) + q(v.Type) + q(v.ID) + q(v.CallID) + q(v.Name) + q(v.Arguments)
	case functionOutput:
		return len(`{"type":,"call_id":,"output":}`) + q(v.Type) + q(v.CallID) + q(v.Output)
	}
	return 64
}
