package session

import (
	"encoding/json"
	"fmt"
	"slices"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// Entry types, as pi names them.
const (
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
	TypeContextEdit         = "context_edit"
)

// RootFromID is a branch summary's FromID when it branched from before the
// first entry.
const RootFromID = "root"

// Entry is one line of a session file after the header: a node of the tree.
// Only the fields of its Type are meaningful. Fields gopi does not know, and
// every field of a type it does not know, are kept in Extra and written
// back unchanged.
type Entry struct {
	Type      string
	ID        string  // 8 lowercase hex characters
	ParentID  *string // nil for a root entry (JSON null)
	Timestamp string  // ISO 8601 as pi writes it: 2026-03-01T10:00:01.000Z

	Message *ai.Message // message

	Provider      string // model_change
	ModelID       string // model_change
	ThinkingLevel string // thinking_level_change

	Summary          string          // compaction, branch_summary
	FirstKeptEntryID string          // compaction
	TokensBefore     int64           // compaction
	FromID           string          // branch_summary: the entry branched from, or "root"
	Details          json.RawMessage // compaction, branch_summary, custom_message; nil when absent
	FromHook         *bool           // compaction, branch_summary; nil when absent

	CustomType string // custom, custom_message
	// Data is a custom entry's data (nil when absent), and a
	// context_edit's replacement as written: JSON null (or absent) omits
	// the target from the model's context, an object {"content": STRING
	// or BLOCKS} replaces the target's content.
	Data          json.RawMessage
	Content       []ai.Content // custom_message
	ContentString bool         // custom_message: content was a plain JSON string
	Display       bool         // custom_message

	TargetID string  // label, context_edit
	Label    *string // label; nil clears the label
	Name     *string // session_info

	Extra map[string]json.RawMessage
}

// CompactionDetails is what pi keeps in a compaction's details.
type CompactionDetails struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}

// Ref returns a parent reference: nil for "" (a root), else &id.
func Ref(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// Parent returns the parent id, "" for a root entry.
func (e *Entry) Parent() string {
	if e.ParentID == nil {
		return ""
	}
	return *e.ParentID
}

// MessageEntry returns a message entry under parent ("" for a root).
func MessageEntry(parent string, m ai.Message) Entry {
	return Entry{Type: TypeMessage, ParentID: Ref(parent), Message: &m}
}

// ModelChangeEntry returns a model_change entry under parent.
func ModelChangeEntry(parent, provider, modelID string) Entry {
	return Entry{Type: TypeModelChange, ParentID: Ref(parent), Provider: provider, ModelID: modelID}
}

// ThinkingLevelEntry returns a thinking_level_change entry under parent.
func ThinkingLevelEntry(parent string, level ai.ThinkingLevel) Entry {
	return Entry{Type: TypeThinkingLevelChange, ParentID: Ref(parent), ThinkingLevel: string(level)}
}

// SessionInfoEntry returns a session_info entry naming the session.
func SessionInfoEntry(parent, name string) Entry {
	return Entry{Type: TypeSessionInfo, ParentID: Ref(parent), Name: &name}
}

// ContextEditEntry returns a context_edit entry under parent that omits
// the entry target from the model's context (replacement nil) or replaces
// its content.
func ContextEditEntry(parent, target string, replacement []ai.Content) (Entry, error) {
	e := Entry{Type: TypeContextEdit, ParentID: Ref(parent), TargetID: target, Data: json.RawMessage("null")}
	if replacement != nil {
		b, err := ai.MarshalContent(replacement, false)
		if err != nil {
			return Entry{}, err
		}
		e.Data = append(append([]byte(`{"content":`), b...), '}')
	}
	return e, nil
}

// CompactionInfo decodes a compaction's details; ok is false when absent
// or not pi's shape.
func (e *Entry) CompactionInfo() (d CompactionDetails, ok bool) {
	if len(e.Details) == 0 || json.Unmarshal(e.Details, &d) != nil {
		return CompactionDetails{}, false
	}
	return d, true
}

// Clone returns a deep copy of e.
func (e Entry) Clone() Entry {
	if e.ParentID != nil {
		p := *e.ParentID
		e.ParentID = &p
	}
	if e.Message != nil {
		m := e.Message.Clone()
		e.Message = &m
	}
	e.Details = slices.Clone(e.Details)
	e.Data = slices.Clone(e.Data)
	if e.Content != nil {
		e.Content = ai.Message{Content: e.Content}.Clone().Content
	}
	e.FromHook = clonePtr(e.FromHook)
	e.Label = clonePtr(e.Label)
	e.Name = clonePtr(e.Name)
	e.Extra = pijson.CloneRawMap(e.Extra)
	return e
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// knownKeys lists, per entry type, the fields gopi reads into typed fields.
var knownKeys = map[string][]string{
	TypeMessage:             {"message"},
	TypeModelChange:         {"provider", "modelId"},
	TypeThinkingLevelChange: {"thinkingLevel"},
	TypeCompaction:          {"summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"},
	TypeBranchSummary:       {"fromId", "summary", "details", "fromHook"},
	TypeCustom:              {"customType", "data"},
	TypeCustomMessage:       {"customType", "content", "display", "details"},
	TypeLabel:               {"targetId", "label"},
	TypeSessionInfo:         {"name"},
	TypeContextEdit:         {"targetId", "replacement"},
}

func isKnownKey(typ, k string) bool {
	switch k {
	case "type", "id", "parentId", "timestamp":
		return true
	}
	return slices.Contains(knownKeys[typ], k)
}

// MarshalJSON writes the entry with pi's field order for its type, then
// unknown fields in sorted order.
func (e Entry) MarshalJSON() ([]byte, error) {
	var w pijson.Object
	w.String("type", e.Type)
	switch e.Type {
	case TypeCustom:
		w.String("customType", e.CustomType)
		w.OptRaw("data", e.Data)
	case TypeCustomMessage:
		if err := e.writeCustomMessage(&w); err != nil {
			return nil, err
		}
	}
	w.String("id", e.ID)
	w.NullableString("parentId", e.ParentID)
	w.String("timestamp", e.Timestamp)
	if err := e.writeTyped(&w); err != nil {
		return nil, fmt.Errorf("entry %s: %w", e.ID, err)
	}
	w.Extra(e.Extra, func(k string) bool { return isKnownKey(e.Type, k) })
	return w.Close()
}

func (e *Entry) writeCustomMessage(w *pijson.Object) error {
	w.String("customType", e.CustomType)
	b, err := ai.MarshalContent(e.Content, e.ContentString)
	if err != nil {
		return fmt.Errorf("entry %s: content: %w", e.ID, err)
	}
	w.Raw("content", b)
	w.Bool("display", e.Display)
	w.OptRaw("details", e.Details)
	return nil
}

func (e *Entry) writeTyped(w *pijson.Object) error {
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return nil
		}
		b, err := e.Message.MarshalJSON()
		if err != nil {
			return err
		}
		w.Raw("message", b)
	case TypeModelChange:
		w.String("provider", e.Provider)
		w.String("modelId", e.ModelID)
	case TypeThinkingLevelChange:
		w.String("thinkingLevel", e.ThinkingLevel)
	case TypeCompaction:
		w.String("summary", e.Summary)
		w.String("firstKeptEntryId", e.FirstKeptEntryID)
		w.Int("tokensBefore", e.TokensBefore)
		w.OptRaw("details", e.Details)
		w.BoolPtr("fromHook", e.FromHook)
	case TypeBranchSummary:
		w.String("fromId", e.FromID)
		w.String("summary", e.Summary)
		w.OptRaw("details", e.Details)
		w.BoolPtr("fromHook", e.FromHook)
	case TypeLabel:
		w.String("targetId", e.TargetID)
		w.StringPtr("label", e.Label)
	case TypeSessionInfo:
		w.StringPtr("name", e.Name)
	case TypeContextEdit:
		w.String("targetId", e.TargetID)
		if len(e.Data) == 0 {
			w.Raw("replacement", []byte("null"))
		} else {
			w.Raw("replacement", e.Data)
		}
	}
	return nil
}

// UnmarshalJSON reads an entry of any type.
func (e *Entry) UnmarshalJSON(b []byte) error {
	d, err := decodeEntry(b, nil)
	if err != nil {
		return err
	}
	*e = d
	return nil
}
