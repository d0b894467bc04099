package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// The prompts below are pi's (packages/coding-agent/src/core/compaction/),
// so a gopi summary reads like a pi one and either can update the other's.

// SummarizationSystemPrompt is the system prompt of a summary request.
const SummarizationSystemPrompt = `You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary.`

const summarizationPrompt = `The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.

Use this EXACT format:

## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or "(none)" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages.`

const updateSummarizationPrompt = `The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.

Update the existing structured summary with new information. RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from "In Progress" to "Done" when completed
- UPDATE "Next Steps" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it

Use this EXACT format:

## Goal
[Preserve existing goals, add new ones if the task expanded]

## Constraints & Preferences
- [Preserve existing, add new ones discovered]

## Progress
### Done
- [x] [Include previously done items AND newly completed items]

### In Progress
- [ ] [Current work - update based on progress]

### Blocked
- [Current blockers - remove if resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (preserve all previous, add new)

## Next Steps
1. [Update based on current state]

## Critical Context
- [Preserve important context, add new if needed]

Keep each section concise. Preserve exact file paths, function names, and error messages.`

const turnPrefixPrompt = `This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is retained.

Summarize the prefix to provide context for the retained suffix:

## Original Request
[What did the user ask for in this turn?]

## Early Progress
- [Key decisions and work done in the prefix]

## Context for Suffix
- [Information needed to understand the retained recent work]

Be concise. Focus on what's needed to understand the kept suffix.`

// toolResultMaxChars caps a tool result in the text sent for summarizing.
const toolResultMaxChars = 2000

// conversationPrompt is the text of a summary request: the conversation
// serialized as pi does, in <conversation> tags, then tail. It is built
// in one buffer: a long session's conversation is tens of megabytes, and
// every intermediate string would copy it again.
func conversationPrompt(ms []ai.Message, tail ...string) string {
	size := 64
	for _, m := range ms {
		size += 24
		for _, c := range m.Content {
			size += len(c.Text) + len(c.Thinking) + len(c.Name) + len(c.Arguments)
		}
	}
	for _, t := range tail {
		size += len(t)
	}
	var sb strings.Builder
	sb.Grow(size)
	sb.WriteString("<conversation>\n")
	writeConversation(&sb, ms)
	sb.WriteString("\n</conversation>\n\n")
	for _, t := range tail {
		sb.WriteString(t)
	}
	return sb.String()
}

// writeConversation is pi's serializeConversation: the conversation as
// tagged plain text, so the summarizer does not continue it; parts are
// separated by blank lines.
func writeConversation(sb *strings.Builder, ms []ai.Message) {
	first := true
	part := func(label, text string) {
		if !first {
			sb.WriteString("\n\n")
		}
		first = false
		sb.WriteString(label)
		sb.WriteString(text)
	}
	for _, m := range ms {
		switch m.Role {
		case ai.RoleUser:
			if t := m.Text(); t != "" {
				part("[User]: ", t)
			}
		case ai.RoleAssistant:
			writeAssistant(part, m)
		case ai.RoleToolResult:
			if t := m.Text(); t != "" {
				part("[Tool result]: ", truncateForSummary(t, toolResultMaxChars))
			}
		}
	}
}

func writeAssistant(part func(label, text string), m ai.Message) {
	var text, thinking, calls []string
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			text = append(text, c.Text)
		case ai.TypeThinking:
			thinking = append(thinking, c.Thinking)
		case ai.TypeToolCall:
			calls = append(calls, c.Name+"("+formatArgs(c.Arguments)+")")
		}
	}
	if len(thinking) > 0 {
		part("[Assistant thinking]: ", strings.Join(thinking, "\n"))
	}
	if len(text) > 0 {
		part("[Assistant]: ", strings.Join(text, "\n"))
	}
	if len(calls) > 0 {
		part("[Assistant tool calls]: ", strings.Join(calls, "; "))
	}
}

// formatArgs writes k=JSON(v) pairs in the arguments' own key order.
func formatArgs(args json.RawMessage) string {
	ms, _, err := pijson.Fields(args)
	if err != nil {
		return ""
	}
	pairs := make([]string, 0, len(ms))
	for _, m := range ms {
		pairs = append(pairs, m.Key+"="+compactJSON(m.Value))
	}
	return strings.Join(pairs, ", ")
}

func compactJSON(v []byte) string {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return string(v)
	}
	b, err := pijson.Marshal(x)
	if err != nil {
		return string(v)
	}
	return string(b)
}

func truncateForSummary(s string, maxChars int) string {
	n := utf8.RuneCountInString(s)
	if n <= maxChars {
		return s
	}
	cut := 0
	for range maxChars {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return fmt.Sprintf("%s\n\n[... %d more characters truncated]", s[:cut], n-maxChars)
}

// fileOps collects the paths of read, write and edit tool calls.
type fileOps struct {
	read, modified map[string]bool
}

func (f *fileOps) add(m ai.Message) {
	if m.Role != ai.RoleAssistant {
		return
	}
	for _, c := range m.ToolCalls() {
		var args struct {
			Path any `json:"path"`
		}
		if json.Unmarshal(c.Arguments, &args) != nil {
			continue
		}
		p, ok := args.Path.(string)
		if !ok || p == "" {
			continue
		}
		switch c.Name {
		case "read":
			f.read[p] = true
		case "write", "edit":
			f.modified[p] = true
		}
	}
}

// lists returns the files only read and the files modified, sorted.
func (f *fileOps) lists() (readFiles, modifiedFiles []string) {
	readFiles, modifiedFiles = []string{}, []string{}
	for p := range f.read {
		if !f.modified[p] {
			readFiles = append(readFiles, p)
		}
	}
	for p := range f.modified {
		modifiedFiles = append(modifiedFiles, p)
	}
	slices.Sort(readFiles)
	slices.Sort(modifiedFiles)
	return readFiles, modifiedFiles
}

// formatFileOperations is pi's: the lists as XML-ish tags after the summary.
func formatFileOperations(readFiles, modifiedFiles []string) string {
	var sections []string
	if len(readFiles) > 0 {
		sections = append(sections, "<read-files>\n"+strings.Join(readFiles, "\n")+"\n</read-files>")
	}
	if len(modifiedFiles) > 0 {
		sections = append(sections, "<modified-files>\n"+strings.Join(modifiedFiles, "\n")+"\n</modified-files>")
	}
	if len(sections) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(sections, "\n\n")
}
