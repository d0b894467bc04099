package openai

import (
	"bytes"
	"encoding/json"
	"gopi/internal/pijson"
)

// OpenRouter streams reasoning_details: an array of reasoning pieces
// (reasoning.text, reasoning.summary, reasoning.encrypted), each streamed
// in fragments that share an index, the signature or encrypted data often
// last. The whole array must go back with the assistant message, or the
// next turn loses the reasoning or is refused. gopi keeps it as pi does,
// as JSON in the thinking block's signature.

// detail is one piece: its fields in arrival order, raw (each array the
// decoder hands over is its own copy, so they may be kept).
type detail struct {
	index  []byte // raw, nil when the piece has none
	typ    []byte
	fields []pijson.Field
}

// details accumulates a message's reasoning_details.
type details struct {
	items []detail
}

// concatenated are the fields whose fragments are pieces of one string.
var concatenated = map[string]bool{"text": true, "summary": true, "data": true}

// add merges one reasoning_details array of a delta. What is not an array
// of objects is ignored: it cannot be sent back as OpenRouter sent it.
func (ds *details) add(raw []byte) {
	if len(raw) == 0 || raw[0] != '[' {
		return
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return
	}
	for _, el := range arr {
		fs, null, err := pijson.Fields(el)
		if err != nil || null {
			continue
		}
		ds.merge(fs)
	}
}

func (ds *details) merge(fs []pijson.Field) {
	var d detail
	for _, f := range fs {
		switch f.Key {
		case "index":
			d.index = f.Value
		case "type":
			d.typ = f.Value
		}
		d.fields = append(d.fields, f)
	}
	if d.index != nil {
		for i := range ds.items {
			if it := &ds.items[i]; bytes.Equal(it.index, d.index) && bytes.Equal(it.typ, d.typ) {
				it.extend(d.fields)
				return
			}
		}
	}
	ds.items = append(ds.items, d)
}

// extend adds a later fragment of the same piece: strings of the
// concatenated fields are joined, other fields take the newest non-null
// value.
func (d *detail) extend(fs []pijson.Field) {
next:
	for _, f := range fs {
		for i := range d.fields {
			old := &d.fields[i]
			if old.Key != f.Key {
				continue
			}
			if concatenated[f.Key] && isString(old.Value) && isString(f.Value) {
				a, _ := pijson.Unquote(old.Value)
				b, _ := pijson.Unquote(f.Value)
				old.Value = pijson.AppendString(nil, a+b)
			} else if string(f.Value) != "null" {
				old.Value = f.Value
			}
			continue next
		}
		d.fields = append(d.fields, f)
	}
}

func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// json returns the array, or "" when nothing came.
func (ds *details) json() string {
	if len(ds.items) == 0 {
		return ""
	}
	b := []byte{'['}
	for i, d := range ds.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, f := range d.fields {
			if j > 0 {
				b = append(b, ',')
			}
			b = pijson.AppendString(b, f.Key)
			b = append(b, ':')
			b = append(b, f.Value...)
		}
		b = append(b, '}')
	}
	return string(append(b, ']'))
}
