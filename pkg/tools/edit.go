package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"gopi/pkg/ai"
)

const editSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
    "oldText": {"type": "string", "description": "Exact text to find and replace (must match exactly)"},
    "newText": {"type": "string", "description": "New text to replace the old text with"},
    "edits": {
      "type": "array",
      "description": "Several replacements in the same file, applied together or not at all; each oldText must match exactly once in the original file and the matches must not overlap",
      "items": {
        "type": "object",
        "properties": {
          "oldText": {"type": "string", "description": "Exact text to find and replace (must match exactly)"},
          "newText": {"type": "string", "description": "New text to replace the old text with"}
        },
        "required": ["oldText", "newText"]
      }
    }
  },
  "required": ["path"]
}`

// maxEditBytes bounds the size of a file edit will load.
const maxEditBytes = 32 << 20

// EditTool is the built-in edit tool: it replaces text that occurs exactly
// once, exactly or after pi's tolerant normalisation, and rewrites only the
// matched bytes. Line endings and a byte order mark are kept. The file is
// replaced atomically, keeping its mode and owner; a symbolic link stays a
// link and the file it points to changes; pipes, sockets and devices are
// refused without being opened for long enough to block.
type EditTool struct {
	ops replaceOps // the real file system unless a test fails a step
}

// NewEdit returns the edit tool.
func NewEdit() *EditTool { return &EditTool{} }

// EditDetails are the details of an edit result, as pi's.
type EditDetails struct {
	// Diff shows the change for display: each changed line numbered,
	// with up to four unchanged lines around it.
	Diff string `json:"diff"`
	// Patch is a unified patch of the change.
	Patch string `json:"patch"`
	// FirstChangedLine is the first changed line of the new file (1-based).
	FirstChangedLine int `json:"firstChangedLine,omitempty"`
}

// Spec describes the tool as pi does, plus the edits list.
func (*EditTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{
		Name: "edit",
		Description: "Edit a file by replacing exact text. The oldText must match exactly (including whitespace). " +
			"Use this for precise, surgical edits. To make several changes to one file at once, pass edits: " +
			"[{oldText, newText}, ...] instead; they are applied together or not at all.",
		Parameters: json.RawMessage(editSchema),
	}
}

type replacement struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

type editArgs struct {
	Path    string        `json:"path"`
	OldText *string       `json:"oldText"`
	NewText *string       `json:"newText"`
	Edits   []replacement `json:"edits"`
}

// list gathers the replacements asked for, or says what is missing.
func (a editArgs) list() ([]replacement, string) {
	var out []replacement
	switch {
	case a.OldText != nil && a.NewText != nil:
		out = append(out, replacement{*a.OldText, *a.NewText})
	case a.OldText != nil || a.NewText != nil:
		return nil, "Provide both oldText and newText (or an edits list)."
	}
	out = append(out, a.Edits...)
	if len(out) == 0 {
		return nil, "Provide oldText and newText, or edits: [{oldText, newText}, ...]."
	}
	return out, ""
}

// Run applies the edits to one file, all or none.
func (t *EditTool) Run(ctx context.Context, call Call) (Result, error) {
	var a editArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	reps, msg := a.list()
	if msg != "" {
		return ErrorResult(msg), nil
	}
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	asked := resolvePath(call.Env, a.Path)
	target, err := linkTarget(asked)
	if err != nil {
		return ErrorResult(fmt.Sprintf("Cannot edit %s: %v", a.Path, err)), nil
	}
	t.ops.afterCheck()
	raw, st, res, ok := loadForEdit(target, a.Path)
	if !ok {
		return res, nil
	}
	bom, text := splitBOM(raw)
	out, msg := applyEdits(text, reps, a.Path)
	if msg != "" {
		return ErrorResult(msg), nil
	}
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	note := "Successfully replaced text in " + a.Path + "."
	if len(reps) > 1 {
		note = fmt.Sprintf("Successfully applied %d edits to %s.", len(reps), a.Path)
	}
	d, name, err := openWriteFolder(call, asked, target, false)
	if err != nil {
		return ErrorResult(writeFolderFailure("edit", a.Path, err)), nil
	}
	defer d.Close()
	res = replaceResult(note, a.Path, t.ops.replace(d, name, []byte(bom+out), st))
	if res.IsError {
		return res, nil
	}
	call.Env.Changes.record(target, Modified)
	diff := diffTexts(a.Path, toLF(text), toLF(out))
	res.Details = EditDetails{Diff: diff.diff, Patch: diff.patch, FirstChangedLine: diff.first}
	return res, nil
}

// loadForEdit reads a regular file whole, with its stat, or says why it
// cannot be edited.
func loadForEdit(abs, shown string) (string, fs.FileInfo, Result, bool) {
	f, st, err := openRegular(abs)
	if err != nil {
		return "", nil, editOpenFailure(shown, err), false
	}
	defer f.Close()
	if st.Size() > maxEditBytes {
		return "", nil, editTooBig(shown, st.Size()), false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	switch {
	case err != nil:
		return "", nil, ErrorResult(fmt.Sprintf("Cannot edit %s: %v", shown, err)), false
	case len(b) > maxEditBytes: // it grew since the stat
		return "", nil, editTooBig(shown, int64(len(b))), false
	}
	return string(b), st, Result{}, true
}

func editTooBig(shown string, size int64) Result {
	return ErrorResult(fmt.Sprintf("Cannot edit %s: it is %s, over the %s edit limit. Use bash (e.g. sed) instead.",
		shown, formatSize(int(size)), formatSize(maxEditBytes)))
}

// editOpenFailure words why a file could not be opened for editing.
func editOpenFailure(shown string, err error) Result {
	if errors.Is(err, fs.ErrNotExist) {
		return ErrorResult(fmt.Sprintf("File not found: %s. Check the path, or create the file with write.", shown))
	}
	switch notRegular, dir := isNotRegular(err); {
	case dir:
		return ErrorResult(fmt.Sprintf("Cannot edit %s: it is a folder.", shown))
	case notRegular:
		return ErrorResult(fmt.Sprintf("Cannot edit %s: %v; edit only changes regular files. Use bash for anything else.", shown, err))
	}
	return ErrorResult(fmt.Sprintf("Cannot edit %s: %v", shown, err))
}

func splitBOM(s string) (bom, rest string) {
	if strings.HasPrefix(s, "\uFEFF") {
		return "\uFEFF", s[len("\uFEFF"):]
	}
	return "", s
}

// lineEnding is the file's line ending as pi detects it: CRLF when the
// first line ends with one.
func lineEnding(s string) string {
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// span is one replacement placed in the source.
type span struct {
	from, to int
	text     string
	index    int
}

// applyEdits places every replacement in text and splices them in, or
// returns a message saying why nothing was changed.
func applyEdits(text string, reps []replacement, path string) (string, string) {
	src := newSourceText(text)
	eol := lineEnding(text)
	spans := make([]span, 0, len(reps))
	for i, r := range reps {
		s, msg := placeOne(src, text, r, eol, path)
		if msg != "" {
			if len(reps) > 1 {
				msg = fmt.Sprintf("edits[%d]: %s No edits were applied.", i, msg)
			}
			return "", msg
		}
		s.index = i
		spans = append(spans, s)
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var out bytes.Buffer
	last := 0
	for i, s := range spans {
		if i > 0 && s.from < spans[i-1].to {
			return "", fmt.Sprintf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit. No edits were applied.",
				spans[i-1].index, s.index, path)
		}
		out.WriteString(text[last:s.from])
		out.WriteString(s.text)
		last = s.to
	}
	out.WriteString(text[last:])
	return out.String(), ""
}

func placeOne(src *sourceText, text string, r replacement, eol, path string) (span, string) {
	if r.OldText == "" {
		return span{}, "oldText must not be empty: give the exact text to replace (to create a file use write)."
	}
	if r.OldText == r.NewText {
		return span{}, fmt.Sprintf("No changes made to %s: oldText and newText are identical.", path)
	}
	m := src.find(r.OldText)
	switch {
	case m.count == 0:
		return span{}, fmt.Sprintf("Could not find the exact text in %s (0 occurrences, also none after normalising whitespace, quotes and dashes). "+
			"The old text must match exactly including all whitespace and newlines.", path)
	case m.count > 1:
		return span{}, fmt.Sprintf("Found %d occurrences of the text in %s. The text must be unique. "+
			"Please provide more context to make it unique.", m.count, path)
	}
	repl := toLF(r.NewText)
	if eol != "\n" {
		repl = strings.ReplaceAll(repl, "\n", eol)
	}
	if text[m.from:m.to] == repl {
		return span{}, fmt.Sprintf("No changes made to %s. The replacement produced identical content.", path)
	}
	return span{from: m.from, to: m.to, text: repl}, ""
}
