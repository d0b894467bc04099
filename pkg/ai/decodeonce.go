package ai

import (
	"fmt"
	"slices"
)

// This file decodes a message while it validates it, so that its bytes are
// not scanned again: nested values are descended into rather than skipped
// raw and re-scanned by the next level. Anything unusual (a key given
// twice, a role other than pi's three, an error) is left to the general
// path in decode.go, which then decides, so results and errors stay the
// same.

// ObjectFieldsMessage is ObjectFields for an object that may hold a
// message under the key "message", as a session entry does: that value is
// decoded while it is validated. msg is the last "message" member decoded
// (nil if there is none or it is null); its Field keeps the raw bytes. A
// "message" that is not a valid message is an error here, so a caller
// that must accept it (or needs ObjectFields' exact error) falls back to
// ObjectFields on any error.
//
// sc, when not nil, is working memory reused from call to call (one per
// goroutine): the fields returned then live in it, valid until the next
// call with sc.
func ObjectFieldsMessage(b []byte, sc *Scratch) (fields []Field, msg *Message, err error) {
	s := scanner{b: b, sc: sc}
	var ms []Field
	if sc != nil {
		ms = sc.fields[:0]
		defer func() { sc.fields = ms[:0] }()
	} else {
		ms = make([]Field, 0, 10)
	}
	err = s.object(func(key []byte, esc bool) error {
		k := keyString(key, esc)
		start := s.i
		if k != "message" || s.peek() == 'n' {
			if _, err := s.raw(); err != nil {
				return err
			}
			if k == "message" {
				msg = nil
			}
		} else {
			m, err := s.messageOnce()
			if err != nil {
				return err
			}
			msg = &m
		}
		ms = append(ms, Field{Key: k, Value: b[start:s.i]})
		return nil
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, nil, err
	}
	return lastWins(ms), msg, nil
}

// Scratch is working memory for ObjectFieldsMessage, so that decoding
// many lines does not allocate a field list for each line and block.
type Scratch struct {
	fields, members []Field
}

// messageOnce decodes and validates the message object at the scanner's
// position, falling back to the general path (on the validated bytes)
// when the message is not of the common shape.
func (s *scanner) messageOnce() (Message, error) {
	start := s.i
	m, ok, err := s.messageAt()
	if err != nil {
		return Message{}, err
	}
	if !ok {
		return decodeMessage(s.b[start:s.i], true)
	}
	return m, nil
}

// messageAt decodes the object at the scanner's position into a message.
// ok false says the general path must decode it: a key is given twice
// (only the last counts there) or the role keeps fields in Extra.
func (s *scanner) messageAt() (m Message, ok bool, err error) {
	var keys [16]string
	seen, ok := keys[:0], true
	err = s.object(func(key []byte, esc bool) error {
		k := keyString(key, esc)
		if slices.Contains(seen, k) {
			ok = false
		}
		seen = append(seen, k)
		if k == "content" {
			return m.contentAt(s)
		}
		v, err := s.raw()
		if err != nil {
			return err
		}
		return messageField(&m, Field{Key: k, Value: v})
	})
	switch m.Role {
	case RoleUser, RoleAssistant, RoleToolResult:
	default:
		ok = false
	}
	return m, ok, err
}

// contentAt decodes the content value at the scanner's position into m.
func (m *Message) contentAt(s *scanner) error {
	var blocks []Content
	isString := false
	var err error
	if s.peek() == '[' {
		blocks, err = s.blocksAt()
	} else {
		var v []byte
		if v, err = s.raw(); err == nil {
			blocks, isString, err = decodeContentValue(v)
		}
	}
	if err != nil {
		return fmt.Errorf("field content: %w", err)
	}
	m.Content, m.ContentString = blocks, isString
	return nil
}
