package session

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopi/pkg/ai"
)

// PreviewScan bounds the bytes of an entry's text a preview looks at: a
// tool result or a file written can be megabytes, its preview costs at
// most this.
const PreviewScan = 64 << 10

// OneLine flattens text to one line of at most n characters: each run of
// white space becomes one space, none is kept at either end, and a longer
// text is cut to n-1 characters and "…". It looks at the first
// PreviewScan bytes of s only; a text longer than that ends with "…".
func OneLine(s string, n int) string { return oneLine([]string{s}, n) }

// oneLine is OneLine of the parts joined, without joining them.
func oneLine(parts []string, n int) string {
	if n <= 0 {
		return ""
	}
	buf := make([]rune, 0, n+2)
	space, offset := false, 0
	for _, p := range parts {
		for i, r := range p {
			if offset+i >= PreviewScan {
				return string(buf[:min(len(buf), n-1)]) + "…"
			}
			if unicode.IsSpace(r) {
				space = len(buf) > 0
				continue
			}
			if space {
				buf, space = append(buf, ' '), false
			}
			buf = append(buf, r)
			if len(buf) > n {
				return string(buf[:n-1]) + "…"
			}
		}
		offset += len(p)
	}
	return string(buf)
}

// Kind names what an entry is: a message's role, else the entry's type.
func Kind(e Entry) string {
	if e.Type == TypeMessage && e.Message != nil {
		return e.Message.Role
	}
	return e.Type
}

// Preview is an entry's kind and what it says on one line of at most n
// characters (OneLine), as gopi session tree, list, show, the shell's
// completion, the chat's /tree and the HTML export show it. It reads at
// most PreviewScan bytes of the entry's text.
func Preview(e Entry, n int) (kind, preview string) {
	w := says(e, PreviewScan+2*utf8.UTFMax) // past PreviewScan: oneLine sees the cut
	return Kind(e), oneLine(w.parts, n)
}

// Says is what an entry says, at most limit bytes of it (0: all): a
// message's text (else its tool calls; an assistant message that did not
// end as asked starts with its stop reason; a pi system message names its
// sections and tools), a model or thinking level change, a summary, what
// a context edit does, a custom message's text, a label, a session name.
func Says(e Entry, limit int) string {
	w := says(e, limit)
	return strings.Join(w.parts, "")
}

func says(e Entry, limit int) *boundedText {
	w := &boundedText{limit: limit}
	switch e.Type {
	case TypeMessage:
		if e.Message != nil {
			messageSays(w, e.Message)
		}
	case TypeModelChange:
		w.add(e.Provider + "/" + e.ModelID)
	case TypeThinkingLevelChange:
		w.add(e.ThinkingLevel)
	case TypeCompaction, TypeBranchSummary:
		w.add(e.Summary)
	case TypeContextEdit:
		if len(e.Data) == 0 || string(e.Data) == "null" {
			w.add("omits " + e.TargetID + " from the context")
		} else {
			w.add("replaces the content of " + e.TargetID)
		}
	case TypeCustomMessage:
		textSays(w, e.Content)
	case TypeLabel:
		if e.Label != nil {
			w.add(*e.Label)
		}
	case TypeSessionInfo:
		if e.Name != nil {
			w.add(*e.Name)
		}
	}
	return w
}

func messageSays(w *boundedText, m *ai.Message) {
	if m.Role == ai.RoleAssistant && m.StopReason != "" && m.StopReason != ai.StopStop && m.StopReason != ai.StopToolUse {
		w.add("[" + string(m.StopReason) + "] ")
	}
	if textSays(w, m.Content) {
		return
	}
	for _, c := range m.Content {
		if c.Type == ai.TypeToolCall {
			w.add(c.Name + " ")
			w.add(w.fit(c.Arguments)) // copied as far as the bound reaches only
			w.add(" ")
		}
	}
	if m.Role == RoleSystem && !w.any {
		w.add(systemSays(m))
	}
}

// textSays adds the text blocks of cs, joined as ai.Message.Text joins
// them, and says whether there was any text.
func textSays(w *boundedText, cs []ai.Content) bool {
	some := false
	for _, c := range cs {
		if c.Type == ai.TypeText && c.Text != "" {
			w.add(c.Text)
			some = true
		}
	}
	return some
}

// systemSays names what a pi system message declares: its prompt
// sections and the tools it adds or removes.
func systemSays(m *ai.Message) string {
	var parts []string
	var sections map[string]json.RawMessage
	if json.Unmarshal(m.Extra["sections"], &sections) == nil && len(sections) > 0 {
		names := slices.Sorted(maps.Keys(sections))
		parts = append(parts, "sections "+strings.Join(names, ", "))
	}
	for _, k := range []string{"toolsAdded", "toolsRemoved"} {
		var tools []struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(m.Extra[k], &tools) == nil && len(tools) > 0 {
			var names []string
			for _, t := range tools {
				names = append(names, t.Name)
			}
			parts = append(parts, k+" "+strings.Join(names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// boundedText gathers parts of text (never copied) up to limit bytes
// (0: no limit), cut at a character boundary.
type boundedText struct {
	parts []string
	n     int // bytes in parts
	limit int
	any   bool // some text was added
}

// fit is the start of b that add would keep, as a string.
func (w *boundedText) fit(b []byte) string {
	if w.limit > 0 && len(b) > w.limit-w.n {
		room := max(w.limit-w.n, 0)
		for room > 0 && !utf8.RuneStart(b[room]) {
			room--
		}
		b = b[:room]
	}
	return string(b)
}

func (w *boundedText) add(s string) {
	if s == "" {
		return
	}
	if w.limit > 0 {
		room := w.limit - w.n
		if room <= 0 {
			return
		}
		if len(s) > room {
			for room > 0 && !utf8.RuneStart(s[room]) {
				room--
			}
			s = s[:room]
		}
	}
	w.parts = append(w.parts, s)
	w.n += len(s)
	w.any = true
}
