package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"gopi/pkg/ai"
)

const writeSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
    "content": {"type": "string", "description": "Content to write to the file"}
  },
  "required": ["path", "content"]
}`

// WriteTool is the built-in write tool: it creates or overwrites a file,
// making its parent directories.
type WriteTool struct{}

// NewWrite returns the write tool.
func NewWrite() *WriteTool { return &WriteTool{} }

// Spec describes the tool as pi does.
func (*WriteTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{
		Name: "write",
		Description: "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. " +
			"Automatically creates parent directories.",
		Parameters: json.RawMessage(writeSchema),
	}
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Run writes one file. An existing file keeps its mode.
func (t *WriteTool) Run(ctx context.Context, call Call) (Result, error) {
	var a writeArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	abs := resolvePath(call.Env, a.Path)
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return ErrorResult(fmt.Sprintf("Cannot write %s: it is a directory. Choose a file path.", a.Path)), nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return ErrorResult(fmt.Sprintf("Cannot create the folder for %s: %v", a.Path, err)), nil
	}
	if err := os.WriteFile(abs, []byte(a.Content), 0o644); err != nil {
		return ErrorResult(fmt.Sprintf("Cannot write %s: %v", a.Path, err)), nil
	}
	return TextResult(fmt.Sprintf("Successfully wrote %d bytes to %s", len(a.Content), a.Path)), nil
}
