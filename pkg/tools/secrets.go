package tools

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// MinSecretLen is the shortest value Secrets scrubs. A shorter one
// ("test", "none", a local server's dummy key) would punch holes into
// ordinary output, and is left as it is.
const MinSecretLen = 8

// Secret is one value that must never leave gopi through a tool's output:
// the API key in use, a provider's key variable, a variable settings
// declare secret.
type Secret struct {
	Name  string // the variable it came from; shown in its redaction
	Value string
}

// Redaction is the text that replaces the value of the secret called name.
// It names the variable, so the model knows what it is not seeing, and
// holds nothing of the value.
func Redaction(name string) string { return "[REDACTED:" + name + "]" }

// Secrets scrubs a fixed set of values from text. It is immutable, so one
// value serves concurrent tool calls; a nil *Secrets scrubs nothing.
type Secrets struct {
	pats    []pattern // longest first: at one position the longest match wins
	longest int
}

type pattern struct {
	old, repl []byte
}

// NewSecrets keeps the values of at least MinSecretLen bytes; a value
// given twice keeps its first name. Each value is matched as it is and in
// its JSON-escaped forms (a tool printing JSON, a result's details).
func NewSecrets(list ...Secret) *Secrets {
	s := &Secrets{}
	seen := map[string]bool{}
	for _, sec := range list {
		if len(sec.Value) < MinSecretLen {
			continue
		}
		repl := []byte(Redaction(sec.Name))
		for _, form := range valueForms(sec.Value) {
			if !seen[form] {
				seen[form] = true
				s.pats = append(s.pats, pattern{old: []byte(form), repl: repl})
				s.longest = max(s.longest, len(form))
			}
		}
	}
	slices.SortStableFunc(s.pats, func(a, b pattern) int { return len(b.old) - len(a.old) })
	return s
}

// valueForms are v and its JSON string escapes, with and without HTML
// escaping, without the quotes.
func valueForms(v string) []string {
	forms := []string{v}
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(v) == nil {
			forms = append(forms, strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:])
		}
	}
	return forms
}

// Len is the number of values (in all their forms) scrubbed.
func (s *Secrets) Len() int {
	if s == nil {
		return 0
	}
	return len(s.pats)
}

// Scrub returns text with every secret replaced by its Redaction.
func (s *Secrets) Scrub(text string) string {
	if s.Len() == 0 || !s.containsAny(text) {
		return text
	}
	out, _ := s.scan(nil, []byte(text), true)
	return string(out)
}

func (s *Secrets) containsAny(text string) bool {
	for _, p := range s.pats {
		if strings.Contains(text, string(p.old)) {
			return true
		}
	}
	return false
}

// scan appends p to dst with the secrets replaced and returns how much of
// p it consumed. Unless final, it holds back only what may still become a
// secret: the longest end of p that begins some secret (a secret starting
// there may end in the next write, or a longer one may). A match is
// decided by bytes that are all present, so a text scanned in pieces
// comes out as it would in one, and a line holding no secret's beginning
// at its end goes out whole at once.
func (s *Secrets) scan(dst, p []byte, final bool) ([]byte, int) {
	cut := len(p) // matches may start before cut
	if !final {
		cut = len(p) - s.heldBack(p)
	}
	next := make([]int, len(s.pats)) // each pattern's next match at or after i; -1 none
	for j, pt := range s.pats {
		next[j] = bytes.Index(p, pt.old)
	}
	i := 0
	for {
		best := -1
		for j, pt := range s.pats {
			if next[j] >= 0 && next[j] < i {
				if k := bytes.Index(p[i:], pt.old); k >= 0 {
					next[j] = i + k
				} else {
					next[j] = -1
				}
			}
			if next[j] >= 0 && (best < 0 || next[j] < next[best]) {
				best = j // ties keep the earlier, longer pattern
			}
		}
		if best < 0 || next[best] >= cut {
			end := max(cut, i)
			return append(dst, p[i:end]...), end
		}
		dst = append(dst, p[i:next[best]]...)
		dst = append(dst, s.pats[best].repl...)
		i = next[best] + len(s.pats[best].old)
	}
}

// heldBack is the length of the longest end of p that is the beginning,
// shorter than the whole, of some secret's form.
func (s *Secrets) heldBack(p []byte) int {
	for j := max(0, len(p)-(s.longest-1)); j < len(p); j++ {
		tail := p[j:]
		for _, pt := range s.pats {
			if len(pt.old) > len(tail) && pt.old[0] == tail[0] && bytes.HasPrefix(pt.old, tail) {
				return len(tail)
			}
		}
	}
	return 0
}

// ScrubStream scrubs a stream that arrives in pieces, such as a command's
// output, passing what is safe on to emit: a secret split across two
// writes is still caught. Not safe for concurrent use.
type ScrubStream struct {
	s       *Secrets
	emit    func([]byte)
	pending []byte
	out     []byte
}

// Stream returns a ScrubStream of s that passes scrubbed bytes to emit.
// With no secrets every write goes straight through.
func (s *Secrets) Stream(emit func([]byte)) *ScrubStream {
	return &ScrubStream{s: s, emit: emit}
}

// Write takes the next piece of the stream. emit receives the scrubbed
// bytes that no later write can change; it must not keep the slice.
func (st *ScrubStream) Write(p []byte) {
	if st.s.Len() == 0 {
		st.emit(p)
		return
	}
	st.pending = append(st.pending, p...)
	st.step(false)
}

// Flush passes on everything held back; call it once at the end.
func (st *ScrubStream) Flush() {
	if st.s.Len() > 0 && len(st.pending) > 0 {
		st.step(true)
	}
}

func (st *ScrubStream) step(final bool) {
	var used int
	st.out, used = st.s.scan(st.out[:0], st.pending, final)
	st.pending = st.pending[:copy(st.pending, st.pending[used:])]
	if len(st.out) > 0 {
		st.emit(st.out)
	}
}
