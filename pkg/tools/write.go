package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"gopi/internal/atomicfile"
	"gopi/pkg/ai"
	"gopi/pkg/sandbox"
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
// making its parent directories. It replaces the file atomically, keeps an
// existing file's mode and owner, writes through symbolic links to the file
// they point to, and refuses pipes, sockets and devices.
type WriteTool struct {
	ops replaceOps // the real file system unless a test fails a step
}

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

// Run writes one file.
func (t *WriteTool) Run(ctx context.Context, call Call) (Result, error) {
	var a writeArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	asked := resolvePath(call.Env, a.Path)
	target, err := linkTarget(asked)
	if err != nil {
		return ErrorResult(fmt.Sprintf("Cannot write %s: %v", a.Path, err)), nil
	}
	t.ops.afterCheck()
	d, name, err := openWriteFolder(call, asked, target, true)
	if err != nil {
		return ErrorResult(writeFolderFailure("write", a.Path, err)), nil
	}
	defer d.Close()
	old, res, ok := writableTarget(d, name, a.Path)
	if !ok {
		return res, nil
	}
	err = t.ops.replace(d, name, []byte(a.Content), old)
	res = replaceResult(fmt.Sprintf("Successfully wrote %d bytes to %s", len(a.Content), a.Path), a.Path, err)
	switch {
	case res.IsError:
	case old == nil:
		call.Env.Changes.record(target, Created)
	default:
		call.Env.Changes.record(target, Modified)
	}
	return res, nil
}

// writableTarget stats the file a write replaces, name in d: nil for a
// new one, or says why it cannot be written. A pipe, socket or device is
// refused, not replaced: renaming a regular file over /dev/null or
// someone's FIFO would break whatever uses it.
func writableTarget(d *atomicfile.Folder, name, shown string) (fs.FileInfo, Result, bool) {
	st, err := d.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, Result{}, true
	case err != nil:
		return nil, ErrorResult(fmt.Sprintf("Cannot write %s: %v", shown, err)), false
	case st.IsDir():
		return nil, ErrorResult(fmt.Sprintf("Cannot write %s: it is a folder. Choose a file path.", shown)), false
	case !st.Mode().IsRegular():
		return nil, ErrorResult(fmt.Sprintf("Cannot write %s: %v; write only replaces regular files. "+
			"Choose another path, or use bash if you mean to send data into it.", shown, checkRegular(st))), false
	}
	return st, Result{}, true
}

// writeFolderFailure words why the folder of a write or edit could not
// be opened: the sandbox's refusal as it is, else the folder named.
func writeFolderFailure(verb, shown string, err error) string {
	var denied *sandbox.DeniedError
	if errors.As(err, &denied) {
		return err.Error()
	}
	if verb == "write" {
		return fmt.Sprintf("Cannot create the folder for %s: %v", shown, err)
	}
	return fmt.Sprintf("Cannot %s %s: %v", verb, shown, err)
}
