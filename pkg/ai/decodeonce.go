package ai

import (
	"fmt"
	"slices"

	"gopi/internal/pijson"
)

// This file decodes a message while it validates it, so that its bytes are
// not scanned again: nested values are descended into rather than skipped
// raw and re-scanned by the next level. Anything unusual (a key given
// twice, a role other than pi's three, an error) is left to the general
// path in decode.go, which then decides, so results and errors stay the
// same.

// ReadMessage decodes and validates the message object at the scanner's
// position, as Message.UnmarshalJSON would decode it, for a reader of
// JSON that embeds messages (a session entry's "message", through
// pijson.FieldsWith). Content blocks use the scanner's Scratch.
func ReadMessage(s *pijson.Scanner) (Message, error) {
	start := s.Mark()
	m, ok, err := messageAt(s)
	if err != nil {
		return Message{}, err
	}
	if !ok {
		return DecodeMessage(s.Since(start))
	}
	return m, nil
}

// messageAt decodes the object at the scanner's position into a message.
// ok false says the general path must decode it: a key is given twice
// (only the last counts there) or the role keeps fields in Extra.
func messageAt(s *pijson.Scanner) (m Message, ok bool, err error) {
	var keys [16]string
	seen, ok := keys[:0], true
	err = s.Object(func(key []byte, esc bool) error {
		k := pijson.Key(key, esc)
		if slices.Contains(seen, k) {
			ok = false
		}
		seen = append(seen, k)
		if k == "content" {
			return m.contentAt(s)
		}
		v, err := s.Raw()
		if err != nil {
			return err
		}
		return messageField(&m, pijson.Field{Key: k, Value: v})
	})
	switch m.Role {
	case RoleUser, RoleAssistant, RoleToolResult:
	default:
		ok = false
	}
	return m, ok, err
}

// contentAt decodes the content value at the scanner's position into m.
func (m *Message) contentAt(s *pijson.Scanner) error {
	var blocks []Content
	isString := false
	var err error
	if s.Peek() == '[' {
		blocks, err = blocksFast(s)
	} else {
		var v pijson.Raw
		if v, err = s.Raw(); err == nil {
			blocks, isString, err = DecodeContent(v)
		}
	}
	if err != nil {
		return fmt.Errorf("field content: %w", err)
	}
	m.Content, m.ContentString = blocks, isString
	return nil
}
