package session

import (
	"encoding/json"
	"fmt"
	"slices"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// decodeEntry reads one entry line. Fields that are not known for the
// entry's type go to Extra unchanged.
//
// The common line is split and its message decoded in one pass; any line
// that pass rejects goes through the general path (fields split first,
// then decoded), which gives the exact result or error. sc is working
// memory reused from line to line; nil allocates afresh.
func decodeEntry(b []byte, sc *pijson.Scratch) (Entry, error) {
	var msg *ai.Message
	ms, err := pijson.FieldsWith(b, sc, "message", func(s *pijson.Scanner) error {
		if s.Peek() == 'n' {
			msg = nil
			_, err := s.Raw()
			return err
		}
		m, err := ai.ReadMessage(s)
		if err != nil {
			return err
		}
		msg = &m
		return nil
	})
	if err == nil {
		return entryFromFields(ms, msg)
	}
	return decodeEntryGeneral(b)
}

// decodeEntryGeneral is decodeEntry's general path.
func decodeEntryGeneral(b []byte) (Entry, error) {
	ms, null, err := pijson.Fields(b)
	if err != nil {
		return Entry{}, err
	}
	if null {
		return Entry{}, fmt.Errorf("entry is null")
	}
	return entryFromFields(ms, nil)
}

// entryFromFields decodes an entry from its fields; msg, when not nil, is
// the "message" field's value already decoded.
func entryFromFields(ms []pijson.Field, msg *ai.Message) (Entry, error) {
	var e Entry
	for _, f := range ms {
		if f.Key == "type" {
			if err := pijson.String("type", f.Value, &e.Type); err != nil {
				return Entry{}, err
			}
		}
	}
	if e.Type == "" {
		return Entry{}, fmt.Errorf("entry has no type")
	}
	for _, f := range ms {
		if err := e.field(f, msg); err != nil {
			id := e.ID
			if id == "" {
				id = "without id"
			}
			return Entry{}, fmt.Errorf("%s entry %s: %w", e.Type, id, err)
		}
	}
	return e, nil
}

func (e *Entry) field(f pijson.Field, msg *ai.Message) error {
	k, v := f.Key, f.Value
	if !isKnownKey(e.Type, k) {
		pijson.AddExtra(&e.Extra, k, v)
		return nil
	}
	switch k {
	case "type":
		return nil
	case "id":
		return pijson.String(k, v, &e.ID)
	case "parentId":
		return decodeRef(k, v, &e.ParentID)
	case "timestamp":
		return pijson.String(k, v, &e.Timestamp)
	case "message":
		return e.decodeMessage(v, msg)
	case "content":
		content, isString, err := ai.DecodeContent(v)
		if err != nil {
			return fmt.Errorf("field content: %w", err)
		}
		e.Content, e.ContentString = content, isString
		return nil
	case "details", "data", "replacement":
		dst := &e.Details
		switch k {
		case "data":
			dst = &e.Data
		case "replacement":
			dst = &e.Data
		}
		*dst = json.RawMessage(slices.Clone(v))
		return nil
	}
	return e.scalarField(k, v)
}

func (e *Entry) scalarField(k string, v pijson.Raw) error {
	switch k {
	case "provider":
		return pijson.String(k, v, &e.Provider)
	case "modelId":
		return pijson.String(k, v, &e.ModelID)
	case "thinkingLevel":
		return pijson.String(k, v, &e.ThinkingLevel)
	case "summary":
		return pijson.String(k, v, &e.Summary)
	case "firstKeptEntryId":
		return pijson.String(k, v, &e.FirstKeptEntryID)
	case "tokensBefore":
		return decodeTokens(v, &e.TokensBefore)
	case "fromId":
		return pijson.String(k, v, &e.FromID)
	case "fromHook":
		return decodeOptBool(k, v, &e.FromHook)
	case "customType":
		return pijson.String(k, v, &e.CustomType)
	case "display":
		return pijson.Bool(k, v, &e.Display)
	case "targetId":
		return pijson.String(k, v, &e.TargetID)
	case "label":
		return decodeRef(k, v, &e.Label)
	case "name":
		return decodeRef(k, v, &e.Name)
	}
	return fmt.Errorf("field %s: not handled", k)
}

func (e *Entry) decodeMessage(v pijson.Raw, msg *ai.Message) error {
	if pijson.IsNull(v) {
		e.Message = nil
		return nil
	}
	if msg != nil {
		e.Message = msg
		return nil
	}
	m, err := ai.DecodeMessage(v)
	if err != nil {
		return err
	}
	e.Message = &m
	return nil
}

// decodeRef reads a string or null into a pointer.
func decodeRef(k string, v pijson.Raw, dst **string) error {
	if pijson.IsNull(v) {
		*dst = nil
		return nil
	}
	var s string
	if err := pijson.String(k, v, &s); err != nil {
		return err
	}
	*dst = &s
	return nil
}

func decodeOptBool(k string, v pijson.Raw, dst **bool) error {
	if pijson.IsNull(v) {
		*dst = nil
		return nil
	}
	var b bool
	if err := pijson.Bool(k, v, &b); err != nil {
		return err
	}
	*dst = &b
	return nil
}

// decodeTokens accepts any JSON number (pi's estimate is an integer, but a
// float written by another tool must not make the line unreadable).
func decodeTokens(v pijson.Raw, dst *int64) error {
	if pijson.IsNull(v) {
		return nil
	}
	if err := pijson.Int("tokensBefore", v, dst); err == nil {
		return nil
	}
	var f float64
	if _, err := fmt.Sscan(string(v), &f); err != nil || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return fmt.Errorf("field tokensBefore: not a number")
	}
	*dst = int64(f)
	return nil
}
