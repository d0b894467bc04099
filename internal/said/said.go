// Package said remembers what an invocation has said, so that a warning
// is said once however often the thing it is about is read again: a
// chat, rpc or acp process reads its settings and agent files again for
// each new session.
package said

import "sync"

// Set is what was said; its zero value is empty and ready, and it is
// safe for concurrent use.
type Set struct {
	mu   sync.Mutex
	said map[string]bool
}

// First reports whether key is new, and remembers it. A nil Set
// remembers nothing: every key is new.
func (s *Set) First(key string) bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.said[key] {
		return false
	}
	if s.said == nil {
		s.said = map[string]bool{}
	}
	s.said[key] = true
	return true
}
