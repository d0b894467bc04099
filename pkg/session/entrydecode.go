package session

import (
	"fmt"
	"slices"

	"gopi/pkg/ai"
)

// decodeEntry reads one entry line. Fields that are not known for the
// entry's type go to Extra unchanged.
//
// The common line is split and its message decoded in one pass; any line
// that pass rejects goes through the general path (fields split first,
// then decoded), which gives the exact result or error. sc is working
// memory reused from line to line; nil allocates afresh.
func decodeEntry(b []byte, sc *ai.Scratch) (Entry, error) {
	if ms, msg, err := ai.ObjectFieldsMessage(b, sc); err == nil {
		return entryFromFields(ms, msg)
	}
	return decodeEntryGeneral(b)
}

// decodeEntryGeneral is decodeEntry's general path.
func decodeEntryGeneral(b []byte) (Entry, error) {
	ms, null, err := ai.ObjectFields(b)
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
func entryFromFields(ms []ai.Field, msg *ai.Message) (Entry, error) {
	var e Entry
	for _, f := range ms {
		if f.Key == "type" {
			if err := decodeString("type", f.Value, &e.Type); err != nil {
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

func (e *Entry) field(f ai.Field, msg *ai.Message) error {
	k, v := f.Key, f.Value
	if !isKnownKey(e.Type, k) {
		ai.AddExtra(&e.Extra, k, v)
		return nil
	}
	switch k {
	case "type":
		return nil
	case "id":
		return decodeString(k, v, &e.ID)
	case "parentId":
		return decodeRef(k, v, &e.ParentID)
	case "timestamp":
		return decodeString(k, v, &e.Timestamp)
	case "message":
		return e.decodeMessage(v, msg)
	case "content":
		content, isString, err := ai.DecodeContent(v, true)
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
		*dst = slices.Clone(v)
		return nil
	}
	return e.scalarField(k, v)
}

func (e *Entry) scalarField(k string, v []byte) error {
	switch k {
	case "provider":
		return decodeString(k, v, &e.Provider)
	case "modelId":
		return decodeString(k, v, &e.ModelID)
	case "thinkingLevel":
		return decodeString(k, v, &e.ThinkingLevel)
	case "summary":
		return decodeString(k, v, &e.Summary)
	case "firstKeptEntryId":
		return decodeString(k, v, &e.FirstKeptEntryID)
	case "tokensBefore":
		return decodeTokens(v, &e.TokensBefore)
	case "fromId":
		return decodeString(k, v, &e.FromID)
	case "fromHook":
		return decodeOptBool(k, v, &e.FromHook)
	case "customType":
		return decodeString(k, v, &e.CustomType)
	case "display":
		return ai.DecodeBool(k, v, &e.Display)
	case "targetId":
		return decodeString(k, v, &e.TargetID)
	case "label":
		return decodeRef(k, v, &e.Label)
	case "name":
		return decodeRef(k, v, &e.Name)
	}
	return fmt.Errorf("field %s: not handled", k)
}

func (e *Entry) decodeMessage(v []byte, msg *ai.Message) error {
	if isNull(v) {
		e.Message = nil
		return nil
	}
	if msg != nil {
		e.Message = msg
		return nil
	}
	m, err := ai.DecodeMessage(v, true)
	if err != nil {
		return err
	}
	e.Message = &m
	return nil
}

// decodeRef reads a string or null into a pointer.
func decodeRef(k string, v []byte, dst **string) error {
	if isNull(v) {
		*dst = nil
		return nil
	}
	var s string
	if err := decodeString(k, v, &s); err != nil {
		return err
	}
	*dst = &s
	return nil
}

func decodeOptBool(k string, v []byte, dst **bool) error {
	if isNull(v) {
		*dst = nil
		return nil
	}
	var b bool
	if err := ai.DecodeBool(k, v, &b); err != nil {
		return err
	}
	*dst = &b
	return nil
}

// decodeTokens accepts any JSON number (pi's estimate is an integer, but a
// float written by another tool must not make the line unreadable).
func decodeTokens(v []byte, dst *int64) error {
	if isNull(v) {
		return nil
	}
	if err := ai.DecodeInt("tokensBefore", v, dst); err == nil {
		return nil
	}
	var f float64
	if _, err := fmt.Sscan(string(v), &f); err != nil || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return fmt.Errorf("field tokensBefore: not a number")
	}
	*dst = int64(f)
	return nil
}

func isNull(v []byte) bool { return string(v) == "null" }

// decodeString reads a JSON string value; null leaves dst unchanged.
func decodeString(k string, v []byte, dst *string) error {
	if isNull(v) {
		return nil
	}
	s, err := ai.UnquoteString(v)
	if err != nil {
		return fmt.Errorf("field %s: not a string", k)
	}
	*dst = s
	return nil
}
