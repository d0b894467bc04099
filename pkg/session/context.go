package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// RoleSystem is the role of pi's system messages: the system prompt's
// sections and the tools declared, replayed in order. gopi sends its own
// system prompt and tools, as pi sends its current ones, so they reach
// no request as messages.
const RoleSystem = "system"

// pi's wrappers around summaries (packages/coding-agent/src/core/messages.ts).
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
	BranchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSummarySuffix     = "</summary>"
)

// Budget bounds the context sent to a model. A zero ContextWindow means no
// limit.
type Budget struct {
	ContextWindow int // the model's whole context, in tokens
	ReserveOutput int // tokens kept free for the answer
	SafetyMargin  int // tokens kept free for estimation error
	// Estimate counts a message's tokens; default EstimateTokens (chars/4).
	Estimate func(ai.Message) int
}

// Limit is the number of tokens the messages may use; 0 means no limit.
func (b Budget) Limit() int {
	if b.ContextWindow <= 0 {
		return 0
	}
	return max(b.ContextWindow-b.ReserveOutput-b.SafetyMargin, 1)
}

// Context is what BuildContext gives the model, and what it left out.
type Context struct {
	// Messages share their blocks with the path's entries: read them, do
	// not change them.
	Messages []ai.Message
	// Sources[i] is the id of the entry Messages[i] came from.
	Sources []string
	Tokens  int // estimated tokens of Messages
	// Dropped describes the oldest turns left out to fit the budget.
	Dropped Dropped
	// Over is true when even the newest turn alone exceeds the budget
	// (it is kept; the caller should compact or fail).
	Over bool
	// Cut is where the messages start: what BuildStableContext is given
	// for the next request.
	Cut Cut
}

// Cut is where a context starts: after the summary of the compaction it
// is based on (if any), at its first kept message. Two contexts with the
// same Cut start with the same messages.
type Cut struct {
	Base string // the id of the compaction whose summary leads; "" for none
	// Index is the first kept message's index in the context's messages
	// as selected before any is left out (the summary is 0); 0 when
	// nothing is left out.
	Index int
	ID    string // the entry id of that message
}

// cutNum/cutDen is the share of the limit a new cut of BuildStableContext
// keeps (two-thirds), so that a growing run goes on for a third of the
// window with the same first message before the cut moves again.
const cutNum, cutDen = 2, 3

// Dropped reports turns BuildContext left out. (Their tokens are not
// counted: estimating a long session's every old message costs more than
// the report is worth.)
type Dropped struct {
	Turns    int
	Messages int
	EntryIDs []string // the entries whose messages were dropped, oldest first
}

// BuildContext returns the messages for the model from a path (root first,
// as PathTo returns it), following pi's buildSessionContext: with a
// compaction on the path, the last one's summary comes first as a user
// message, then the entries from its firstKeptEntryId up to it, then all
// after it. Messages, custom messages and non-empty branch summaries reach
// the model; labels, custom entries, session info and settings changes do
// not. When the messages exceed the budget, the oldest whole turns are
// dropped (a leading compaction summary is kept); a tool call is never
// separated from its result.
func BuildContext(path []Entry, b Budget) Context {
	return buildContext(path, b, Cut{}, false)
}

// BuildStableContext is BuildContext for the requests of a run, one after
// another: prev is the Cut of the previous request's context. While the
// messages from prev's first kept one still fit, they are what is sent,
// so the start of the context (what providers cache) stays the same from
// one request to the next even when more would fit. When it has to cut
// anew, it leaves out enough old turns that the rest uses at most
// two-thirds of the limit, so the next cut is many requests away.
func BuildStableContext(path []Entry, b Budget, prev Cut) Context {
	return buildContext(path, b, prev, true)
}

func buildContext(path []Entry, b Budget, prev Cut, stable bool) Context {
	// The selection and the budget work on pointers into the path; only
	// the messages kept are copied out (a long session's dropped turns
	// cost neither a copy nor a conversion), and those share their blocks
	// with the path's entries, which are never changed in place.
	var ms []*ai.Message
	var ids []string
	compacted := contextEntries(path, func(e, edit *Entry) {
		m, ok := llmMessageOf(e)
		if ok && edit != nil {
			m, ok = editedMessage(e, m, edit)
		}
		if ok {
			ms = append(ms, m)
			ids = append(ids, e.ID)
		}
	})
	pinned, base := 0, ""
	if compacted {
		pinned, base = 1, ids[0]
	}
	f := fitting{prev: -1}
	if stable {
		f.low = b.Limit() * cutNum / cutDen
		if prev.Base == base && prev.Index > pinned && prev.Index < len(ids) && ids[prev.Index] == prev.ID {
			f.prev = prev.Index
		}
	}
	ctx := Context{Cut: Cut{Base: base}}
	keepFrom, starts := fit(&ctx, ms, b, pinned, f)
	ctx.Dropped = dropped(ids, pinned, keepFrom, starts)
	if keepFrom > pinned && keepFrom < len(ms) {
		ctx.Cut.Index, ctx.Cut.ID = keepFrom, ids[keepFrom]
	}
	n := pinned + len(ms) - keepFrom
	ctx.Messages, ctx.Sources = make([]ai.Message, 0, n), make([]string, 0, n)
	for i, m := range ms {
		if i < pinned || i >= keepFrom {
			ctx.Messages = append(ctx.Messages, *m)
			ctx.Sources = append(ctx.Sources, ids[i])
		}
	}
	return ctx
}

// contextEntries visits the entries of a path whose messages pi sends, in
// order, and reports whether a compaction leads them. An entry that a
// context_edit among them targets is visited with the latest such edit
// (pi's buildSessionProjection); otherwise edit is nil.
func contextEntries(path []Entry, visit func(e, edit *Entry)) bool {
	ci := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == TypeCompaction {
			ci = i
			break
		}
	}
	// sel is the selection as ranges of path: [0,len) without a
	// compaction; [ci,ci+1) [first,ci) [ci+1,len) with one.
	type span struct{ from, to int }
	sel := []span{{0, len(path)}}
	if ci >= 0 {
		comp := &path[ci]
		first := ci
		for i := range path[:ci] {
			if path[i].ID == comp.FirstKeptEntryID {
				first = i
				break
			}
		}
		sel = []span{{ci, ci + 1}, {first, ci}, {ci + 1, len(path)}}
	}
	var edits map[string]*Entry
	for _, r := range sel {
		for i := r.from; i < r.to; i++ {
			if e := &path[i]; e.Type == TypeContextEdit {
				if edits == nil {
					edits = map[string]*Entry{}
				}
				edits[e.TargetID] = e
			}
		}
	}
	for k, r := range sel {
		for i := r.from; i < r.to; i++ {
			e := &path[i]
			// pi leaves out system messages kept from before the
			// compaction (its checkpoint stands for them), and an older
			// compaction kept in the range contributes nothing.
			if k == 1 && (e.Type == TypeCompaction || e.Type == TypeMessage && e.Message != nil && e.Message.Role == RoleSystem) {
				continue
			}
			visit(e, edits[e.ID])
		}
	}
	return ci >= 0
}

// editedMessage applies a context_edit to the message m of its target
// entry, as pi's projectContextEntry does: a null replacement omits the
// message; otherwise the content of a user, assistant, tool result or
// custom message is replaced (a string for an assistant or tool result
// becomes one text block) and other messages are kept as they are.
func editedMessage(e *Entry, m *ai.Message, edit *Entry) (*ai.Message, bool) {
	r := edit.Data
	if len(r) == 0 || string(r) == "null" {
		return nil, false
	}
	editable := e.Type == TypeCustomMessage
	if e.Type == TypeMessage && e.Message != nil {
		switch e.Message.Role {
		case ai.RoleUser, ai.RoleAssistant, ai.RoleToolResult, "custom":
			editable = true
		}
	}
	if !editable {
		return m, true
	}
	out := *m
	out.Content, out.ContentString = nil, false
	var fields struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(r, &fields) == nil && len(fields.Content) > 0 {
		if content, isString, err := decodeContentBytes(fields.Content); err == nil {
			out.Content = content
			out.ContentString = isString && m.Role != ai.RoleAssistant && m.Role != ai.RoleToolResult
		}
	}
	return &out, true
}

// llmMessageOf is entryMessage without a copy for the common case: a
// stored user, assistant or tool result message is sent as it is.
func llmMessageOf(e *Entry) (*ai.Message, bool) {
	if e.Type == TypeMessage && e.Message != nil {
		switch e.Message.Role {
		case ai.RoleUser, ai.RoleAssistant, ai.RoleToolResult:
			return e.Message, true
		}
	}
	m, ok := entryMessage(*e)
	return &m, ok
}

// entryMessage converts an entry to the message the model sees, as pi's
// buildSessionContext and convertToLlm do together.
func entryMessage(e Entry) (ai.Message, bool) {
	if e.Type == TypeMessage {
		if e.Message == nil {
			return ai.Message{}, false
		}
		return llmMessage(*e.Message)
	}
	ts := parseMillis(e.Timestamp)
	switch e.Type {
	case TypeCustomMessage:
		return ai.Message{Role: ai.RoleUser, Content: e.Content, Timestamp: ts}, true
	case TypeBranchSummary:
		if e.Summary == "" {
			return ai.Message{}, false
		}
		return ai.UserText(BranchSummaryPrefix+e.Summary+BranchSummarySuffix, ts), true
	case TypeCompaction:
		return ai.UserText(CompactionSummaryPrefix+e.Summary+CompactionSummarySuffix, ts), true
	}
	return ai.Message{}, false
}

// llmMessage is pi's convertToLlm for one stored message.
func llmMessage(m ai.Message) (ai.Message, bool) {
	switch m.Role {
	case ai.RoleUser, ai.RoleAssistant, ai.RoleToolResult:
		return m, true
	case "custom":
		return ai.Message{Role: ai.RoleUser, Content: m.Content, Timestamp: m.Timestamp}, true
	case "bashExecution":
		if extraBool(m.Extra, "excludeFromContext") {
			return ai.Message{}, false
		}
		return ai.UserText(bashExecutionText(m.Extra), m.Timestamp), true
	case "branchSummary":
		return ai.UserText(BranchSummaryPrefix+extraString(m.Extra, "summary")+BranchSummarySuffix, m.Timestamp), true
	case "compactionSummary":
		return ai.UserText(CompactionSummaryPrefix+extraString(m.Extra, "summary")+CompactionSummarySuffix, m.Timestamp), true
	}
	return ai.Message{}, false
}

// bashExecutionText is pi's bashExecutionToText.
func bashExecutionText(x map[string]json.RawMessage) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Ran `%s`\n", extraString(x, "command"))
	if out := extraString(x, "output"); out != "" {
		fmt.Fprintf(&sb, "```\n%s\n```", out)
	} else {
		sb.WriteString("(no output)")
	}
	var code *float64
	_ = json.Unmarshal(x["exitCode"], &code)
	if extraBool(x, "cancelled") {
		sb.WriteString("\n\n(command cancelled)")
	} else if code != nil && *code != 0 {
		fmt.Fprintf(&sb, "\n\nCommand exited with code %s", formatJSNumber(*code))
	}
	if p := extraString(x, "fullOutputPath"); extraBool(x, "truncated") && p != "" {
		fmt.Fprintf(&sb, "\n\n[Output truncated. Full output: %s]", p)
	}
	return sb.String()
}

func formatJSNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func extraString(x map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(x[k], &s)
	return s
}

func extraBool(x map[string]json.RawMessage, k string) bool {
	var b bool
	_ = json.Unmarshal(x[k], &b)
	return b
}

// parseMillis is JavaScript's new Date(iso).getTime(), 0 when invalid.
func parseMillis(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// ModelState is the model and thinking level a path ends with: what a
// resumed session continues with.
type ModelState struct {
	Provider      string // "" when the path names no model
	ModelID       string
	ThinkingLevel ai.ThinkingLevel // "off" when the path sets none
}

// ModelStateOf returns the model and thinking level of a path, as pi
// reads them: the last model_change or assistant message names the
// model, the last thinking_level_change the level.
func ModelStateOf(path []Entry) ModelState {
	var st modelStateWalk
	for i := len(path) - 1; i >= 0 && !st.done(); i-- {
		st.see(&path[i])
	}
	return st.state()
}

// ModelStateAt is ModelStateOf of the path to the entry id, found
// by walking from it towards the root only until both are named
// (a long session's whole path is not built). An unknown id, a missing
// parent or a loop ends the walk.
func ModelStateAt(entries []Entry, id string) ModelState {
	byID, _ := indexByID(entries)
	var st modelStateWalk
	for cur, steps := id, 0; cur != "" && steps <= len(entries) && !st.done(); steps++ {
		i, ok := byID[cur]
		if !ok {
			break
		}
		st.see(&entries[i])
		cur = entries[i].Parent()
	}
	return st.state()
}

// modelStateWalk collects the newest model and thinking level, walking a
// path backwards.
type modelStateWalk struct {
	s                    ModelState
	haveModel, haveThink bool
}

func (w *modelStateWalk) done() bool { return w.haveModel && w.haveThink }

func (w *modelStateWalk) see(e *Entry) {
	switch {
	case e.Type == TypeThinkingLevelChange && !w.haveThink:
		w.s.ThinkingLevel, w.haveThink = ai.ThinkingLevel(e.ThinkingLevel), true
	case e.Type == TypeModelChange && !w.haveModel:
		w.s.Provider, w.s.ModelID, w.haveModel = e.Provider, e.ModelID, true
	case e.Type == TypeMessage && e.Message != nil && e.Message.Role == ai.RoleAssistant && !w.haveModel:
		w.s.Provider, w.s.ModelID, w.haveModel = e.Message.Provider, e.Message.Model, true
	}
}

func (w *modelStateWalk) state() ModelState {
	if !w.haveThink {
		w.s.ThinkingLevel = ai.ThinkingOff
	}
	return w.s
}

// decodeContentBytes validates v, then decodes it as a message's content.
func decodeContentBytes(v []byte) ([]ai.Content, bool, error) {
	raw, err := pijson.Validate(v)
	if err != nil {
		return nil, false, err
	}
	return ai.DecodeContent(raw)
}
