package session

import (
	"encoding/json"
	"fmt"

	"gopi/pkg/ai"
)

// CurrentVersion is the session format version gopi writes.
const CurrentVersion = 3

// Header is line 1 of a session file. It is not part of the tree.
type Header struct {
	Type          string // always "session"
	Version       int    // 0 when absent: a version 1 file
	ID            string // a UUID
	Timestamp     string // ISO 8601
	Cwd           string
	ParentSession string // path of the session this one was forked from
	Extra         map[string]json.RawMessage
}

var headerKeys = map[string]bool{
	"type": true, "version": true, "id": true, "timestamp": true, "cwd": true, "parentSession": true,
}

// MarshalJSON writes the header in pi's field order.
func (h Header) MarshalJSON() ([]byte, error) {
	var w jsonWriter
	w.str("type", h.Type)
	if h.Version != 0 {
		w.int("version", int64(h.Version))
	}
	w.str("id", h.ID)
	w.str("timestamp", h.Timestamp)
	w.str("cwd", h.Cwd)
	if h.ParentSession != "" {
		w.str("parentSession", h.ParentSession)
	}
	w.extra(h.Extra, func(k string) bool { return headerKeys[k] })
	return w.close(), nil
}

// UnmarshalJSON reads a header; it must have type "session" and a string id.
func (h *Header) UnmarshalJSON(b []byte) error {
	d, err := decodeHeader(b)
	if err != nil {
		return err
	}
	*h = d
	return nil
}

func decodeHeader(b []byte) (Header, error) {
	var h Header
	ms, null, err := ai.ObjectFields(b)
	if err != nil {
		return h, err
	}
	if null {
		return h, fmt.Errorf("header is null")
	}
	hasID := false
	for _, f := range ms {
		if err := h.field(f, &hasID); err != nil {
			return Header{}, err
		}
	}
	if h.Type != "session" {
		return Header{}, fmt.Errorf("type is %q, not \"session\"", h.Type)
	}
	if !hasID {
		return Header{}, fmt.Errorf("no session id")
	}
	return h, nil
}

func (h *Header) field(f ai.Field, hasID *bool) error {
	switch f.Key {
	case "type":
		return decodeString(f.Key, f.Value, &h.Type)
	case "version":
		var v int64
		if err := ai.DecodeInt(f.Key, f.Value, &v); err != nil {
			return err
		}
		h.Version = int(v)
	case "id":
		*hasID = len(f.Value) > 0 && f.Value[0] == '"'
		return decodeString(f.Key, f.Value, &h.ID)
	case "timestamp":
		return decodeString(f.Key, f.Value, &h.Timestamp)
	case "cwd":
		return decodeString(f.Key, f.Value, &h.Cwd)
	case "parentSession":
		return decodeString(f.Key, f.Value, &h.ParentSession)
	default:
		ai.AddExtra(&h.Extra, f.Key, f.Value)
	}
	return nil
}
