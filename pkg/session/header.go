package session

import (
	"encoding/json"
	"fmt"
	"gopi/internal/pijson"
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
	var w pijson.Object
	w.String("type", h.Type)
	if h.Version != 0 {
		w.Int("version", int64(h.Version))
	}
	w.String("id", h.ID)
	w.String("timestamp", h.Timestamp)
	w.String("cwd", h.Cwd)
	if h.ParentSession != "" {
		w.String("parentSession", h.ParentSession)
	}
	w.Extra(h.Extra, func(k string) bool { return headerKeys[k] })
	return w.Close()
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
	ms, null, err := pijson.Fields(b)
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

func (h *Header) field(f pijson.Field, hasID *bool) error {
	switch f.Key {
	case "type":
		return pijson.String(f.Key, f.Value, &h.Type)
	case "version":
		var v int64
		if err := pijson.Int(f.Key, f.Value, &v); err != nil {
			return err
		}
		h.Version = int(v)
	case "id":
		*hasID = len(f.Value) > 0 && f.Value[0] == '"'
		return pijson.String(f.Key, f.Value, &h.ID)
	case "timestamp":
		return pijson.String(f.Key, f.Value, &h.Timestamp)
	case "cwd":
		return pijson.String(f.Key, f.Value, &h.Cwd)
	case "parentSession":
		return pijson.String(f.Key, f.Value, &h.ParentSession)
	default:
		pijson.AddExtra(&h.Extra, f.Key, f.Value)
	}
	return nil
}

// ParentToolCallID is the tool call of the parent session that started
// this one as a sub-agent's run ("parentToolCallId"); "" for a session
// of its own (a fork names its parent session, but no call).
func (h Header) ParentToolCallID() string {
	raw, ok := h.Extra["parentToolCallId"]
	if !ok {
		return ""
	}
	var id string
	if json.Unmarshal(raw, &id) != nil {
		return ""
	}
	return id
}

// IsSubagent reports whether the session is a sub-agent's run, started
// by a parent session's task call.
func (h Header) IsSubagent() bool { return h.ParentToolCallID() != "" }
