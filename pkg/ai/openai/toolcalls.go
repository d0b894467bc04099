package openai

import (
	"strconv"
	"strings"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// Tool calls stream as fragments: the first of a call carries its id and
// name, the later ones pieces of its arguments, and the API keys them by
// index so parallel calls can interleave. Not every server keeps the
// index apart: Ollama sends 0 for every call, older Ollama and Gemini's
// OpenAI endpoint leave index (and sometimes id) out. So a fragment at an
// index starts a new call when it carries another id, or when the call
// it would extend is already a complete JSON value and the fragment names
// a tool or begins a new value. Two parallel calls stay two calls.

// call is one tool call being assembled.
type call struct {
	block int // in the Builder's message
	id    string
	name  string
	args  jsonDepth
	sig   string // Gemini's thought signature
	open  bool
}

// calls assembles a message's tool calls.
type calls struct {
	byIndex map[int]*call // the call each index feeds now
	all     []*call       // in start order, which is content order
	// idPrefix starts the ids gopi makes for calls the server sent none
	// for; it holds the time of the request, so they differ from turn to
	// turn.
	idPrefix string
}

// add applies one fragment; false means the consumer stopped.
func (cs *calls) add(b *ai.Builder, tc *toolCallDelta) bool {
	c := cs.byIndex[tc.Index]
	if c == nil || c.startsNew(tc) {
		if c != nil && !c.end(b) {
			return false
		}
		id := tc.ID
		if id == "" {
			id = cs.idPrefix + strconv.Itoa(len(cs.all))
		}
		idx, ok := b.ToolCallStart(id, tc.Function.Name)
		if !ok {
			return false
		}
		c = &call{block: idx, id: id, name: tc.Function.Name, open: true}
		if cs.byIndex == nil {
			cs.byIndex = map[int]*call{}
		}
		cs.byIndex[tc.Index] = c
		cs.all = append(cs.all, c)
	}
	if x := tc.ExtraContent; x != nil && x.Google != nil && x.Google.ThoughtSignature != "" {
		c.sig = x.Google.ThoughtSignature
	}
	args := string(tc.Function.Arguments)
	if args == "" {
		return true
	}
	c.args.feed(args)
	return b.ToolCallDelta(c.block, args)
}

// startsNew reports whether fragment tc begins another call than c.
func (c *call) startsNew(tc *toolCallDelta) bool {
	if tc.ID != "" {
		return tc.ID != c.id
	}
	if !c.args.complete() {
		return false
	}
	name := tc.Function.Name
	return (name != "" && name != c.name) || strings.HasPrefix(strings.TrimLeft(string(tc.Function.Arguments), " \t\r\n"), "{")
}

// end closes c, with the thought signature kept as pi keeps it.
func (c *call) end(b *ai.Builder) bool {
	if !c.open {
		return true
	}
	c.open = false
	if c.sig != "" {
		b.SetExtra(c.block, thoughtSignatureKey, pijson.AppendString(nil, c.sig))
	}
	return b.ToolCallEnd(c.block)
}

// endAll closes every open call, in content order.
func (cs *calls) endAll(b *ai.Builder) bool {
	for _, c := range cs.all {
		if !c.end(b) {
			return false
		}
	}
	clear(cs.byIndex)
	return true
}

// thoughtSignatureKey is the field of a toolCall block where pi keeps a
// signature that must go back with the call.
const thoughtSignatureKey = "thoughtSignature"

// jsonDepth follows the nesting of streamed JSON text, to tell when a
// value is complete without keeping or re-reading the text.
type jsonDepth struct {
	depth   int
	inStr   bool
	esc     bool
	started bool // an object or array was opened
}

func (j *jsonDepth) feed(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if j.inStr {
			switch {
			case j.esc:
				j.esc = false
			case c == '\\':
				j.esc = true
			case c == '"':
				j.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			j.inStr = true
		case '{', '[':
			j.depth++
			j.started = true
		case '}', ']':
			j.depth--
		}
	}
}

// complete reports whether an object or array was opened and everything
// opened is closed.
func (j *jsonDepth) complete() bool { return j.started && j.depth <= 0 && !j.inStr }
