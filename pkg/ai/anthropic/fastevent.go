package anthropic

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"gopi/internal/pijson"
)

// errSlow sends an event to json.Unmarshal: it holds something the fast
// reader leaves to encoding/json.
var errSlow = errors.New("not for the fast reader")

// fastEvent decodes a stream event other than a compact delta (message
// and block starts and stops, message_delta, ping) without encoding/json's
// reflection, whose first look at streamEvent's types cost more than the
// rest of a short answer's decoding. It reads only what encoding/json
// would read the same way: each known key once, spelled exactly, with a
// value of the field's own JSON type (or null where that leaves the
// field as encoding/json leaves it). Anything else (a repeated key, a key
// encoding/json would match without regard to case, a number that is
// not a whole one, invalid JSON) reports ok false, and the event takes
// json.Unmarshal's path.
func fastEvent(data string) (e streamEvent, ok bool) {
	s := pijson.NewScanner([]byte(data))
	err := fields(&s, []string{"type", "message", "index", "content_block", "delta", "usage"}, func(i int) error {
		switch i {
		case 0:
			return str(&s, &e.Type)
		case 1:
			return object(&s, &e.Message, func(m *eventMessage) error { return messageFields(&s, m) })
		case 2:
			return blockIndex(&s, &e.Index)
		case 3:
			return object(&s, &e.ContentBlock, func(cb *eventBlock) error { return blockFields(&s, cb) })
		case 4:
			return object(&s, &e.Delta, func(d *deltaBody) error { return deltaFields(&s, d) })
		}
		return object(&s, &e.Usage, func(u *usage) error { return usageFields(&s, u) })
	})
	if err != nil || s.End() != nil {
		return streamEvent{}, false
	}
	return e, true
}

// messageFields reads message_start's message.
func messageFields(s *pijson.Scanner, m *eventMessage) error {
	return fields(s, []string{"id", "model", "usage"}, func(i int) error {
		switch i {
		case 0:
			return str(s, &m.ID)
		case 1:
			return str(s, &m.Model)
		}
		if s.Peek() == 'n' {
			_, err := s.Raw() // null leaves the struct as it is
			return err
		}
		return usageFields(s, &m.Usage)
	})
}

// blockIndex reads a block's index: a whole number that fits an int.
func blockIndex(s *pijson.Scanner, dst *int) error {
	var n *int64
	if err := integer(s, &n); err != nil || n == nil || int64(int(*n)) != *n {
		return errSlow
	}
	*dst = int(*n)
	return nil
}

// blockFields reads content_block_start's block; a null input is left
// to encoding/json.
func blockFields(s *pijson.Scanner, cb *eventBlock) error {
	return fields(s, []string{"type", "id", "name", "input", "text", "thinking", "signature", "data"}, func(i int) error {
		if i == 3 {
			v, err := s.Raw()
			if err != nil || pijson.IsNull(v) {
				return errSlow
			}
			cb.Input = json.RawMessage(slices.Clone(v))
			return nil
		}
		dst := [...]*string{&cb.Type, &cb.ID, &cb.Name, nil, &cb.Text, &cb.Thinking, &cb.Signature, &cb.Data}[i]
		return str(s, dst)
	})
}

// deltaFields reads a delta object (content_block_delta, message_delta).
func deltaFields(s *pijson.Scanner, d *deltaBody) error {
	return fields(s, []string{"type", "text", "partial_json", "thinking", "signature", "stop_reason"}, func(i int) error {
		dst := [...]*string{&d.Type, &d.Text, &d.PartialJSON, &d.Thinking, &d.Signature, &d.StopReason}[i]
		return str(s, dst)
	})
}

// usageFields reads a usage object.
func usageFields(s *pijson.Scanner, u *usage) error {
	return fields(s, []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation"}, func(i int) error {
		switch i {
		case 0:
			return integer(s, &u.InputTokens)
		case 1:
			return integer(s, &u.OutputTokens)
		case 2:
			return integer(s, &u.CacheRead)
		case 3:
			return integer(s, &u.CacheWrite)
		}
		return object(s, &u.CacheCreation, func(c *cacheCreation) error {
			return fields(s, []string{"ephemeral_1h_input_tokens"}, func(int) error { return integer(s, &c.Ephemeral1h) })
		})
	})
}

// fields reads an object whose known keys are keys, calling field with
// a key's index to read its value; other keys' values are skipped. A key
// given twice, or one encoding/json would take for a known key though it
// is spelled otherwise, is errSlow.
func fields(s *pijson.Scanner, keys []string, field func(i int) error) error {
	if s.Peek() != '{' {
		return errSlow
	}
	var seen uint64
	return s.Object(func(raw []byte, esc bool) error {
		k := string(raw)
		if esc {
			k = pijson.Key(raw, esc)
		}
		for i, known := range keys {
			switch {
			case k == known && !esc:
				if seen&(1<<i) != 0 {
					return errSlow
				}
				seen |= 1 << i
				return field(i)
			case strings.EqualFold(k, known):
				return errSlow
			}
		}
		_, err := s.Raw()
		return err
	})
}

// object reads an object into a new *T at *dst, or null as nil.
func object[T any](s *pijson.Scanner, dst **T, read func(*T) error) error {
	if s.Peek() == 'n' {
		_, err := s.Raw()
		*dst = nil
		return err
	}
	v := new(T)
	if err := read(v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// str reads a string; null leaves dst as it is, as encoding/json does.
func str(s *pijson.Scanner, dst *string) error {
	switch s.Peek() {
	case '"', 'n':
	default:
		return errSlow
	}
	v, err := s.Raw()
	if err != nil || pijson.IsNull(v) {
		return err
	}
	*dst = pijson.RawString(v)
	return nil
}

// integer reads a whole number into a new *int64, or null as nil.
func integer(s *pijson.Scanner, dst **int64) error {
	v, err := s.Raw()
	if err != nil {
		return err
	}
	if pijson.IsNull(v) {
		*dst = nil
		return nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return errSlow
	}
	*dst = &n
	return nil
}
