package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"gopi/pkg/ai"
)

const readSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
    "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
    "limit": {"type": "number", "description": "Maximum number of lines to read"}
  },
  "required": ["path"]
}`

// Read limits beyond pi's: reads stay bounded on any input.
const (
	// maxImageBytes bounds an image returned as content.
	maxImageBytes = 10 << 20
	// sniffBytes is how much of a file decides image or binary.
	sniffBytes = 8 << 10
	// maxScanBytes bounds how far read counts lines past what it shows.
	maxScanBytes = 100 << 20
)

// ReadTool is the built-in read tool: text head-truncated to 2000 lines or
// 50 KB, images as image content, binaries refused. It streams the file
// and never holds more than one window of it in memory.
type ReadTool struct{}

// NewRead returns the read tool.
func NewRead() *ReadTool { return &ReadTool{} }

// ReadDetails are the details of a read result.
type ReadDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
	// ImageUnsupportedByModel is the id of the model in use when an
	// image was read that it does not take (pi 1.6's detail): the result
	// keeps the image, the model is sent a text in its place.
	ImageUnsupportedByModel string `json:"imageUnsupportedByModel,omitempty"`
}

// Spec describes the tool as pi does.
func (*ReadTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{
		Name: "read",
		Description: fmt.Sprintf("Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "+
			"Images are sent as attachments. For text files, output is truncated to %d lines or %dKB (whichever is hit first). "+
			"Use offset/limit for large files. When you need the full file, continue with offset until complete.",
			DefaultMaxLines, DefaultMaxBytes/1024),
		Parameters: json.RawMessage(readSchema),
	}
}

type readArgs struct {
	Path   string   `json:"path"`
	Offset *float64 `json:"offset"`
	Limit  *float64 `json:"limit"`
}

// Run reads one file.
func (t *ReadTool) Run(ctx context.Context, call Call) (Result, error) {
	var a readArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	abs := resolvePath(call.Env, a.Path)
	f, res, ok := openForRead(abs, a.Path)
	if !ok {
		return res, nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return ErrorResult(fmt.Sprintf("Cannot read %s: %v", a.Path, err)), nil
	}
	if mime := ImageMime(head); mime != "" {
		return readImage(br, a.Path, mime, call.Env), nil
	}
	if why := binaryReason(head); why != "" {
		return ErrorResult(fmt.Sprintf("Cannot read %s: it looks like a binary file (%s). "+
			"Inspect it with bash instead, e.g. `file %s` or `xxd %s | head`.", a.Path, why, a.Path, a.Path)), nil
	}
	start := max(intArg(a.Offset, 1)-1, 0)
	limit := -1
	if a.Limit != nil {
		limit = intArg(a.Limit, 0)
	}
	w, err := scanWindow(ctx, br, start, limit)
	if err != nil {
		if ctx.Err() != nil {
			return ErrorResult(errAborted), nil
		}
		return ErrorResult(fmt.Sprintf("Cannot read %s: %v", a.Path, err)), nil
	}
	return w.result(a.Path, a.Offset), nil
}

// openForRead opens a regular file to read, or says why it cannot.
func openForRead(abs, shown string) (*os.File, Result, bool) {
	f, _, err := openRegular(abs)
	if err == nil {
		return f, Result{}, true
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrorResult(fmt.Sprintf("File not found: %s (resolved to %s). Check the path, e.g. with ls or find.", shown, abs)), false
	}
	switch notRegular, dir := isNotRegular(err); {
	case dir:
		return nil, ErrorResult(fmt.Sprintf("Cannot read %s: it is a folder. List it with ls or bash instead.", shown)), false
	case notRegular:
		return nil, ErrorResult(fmt.Sprintf("Cannot read %s: %v; read only opens regular files, so a pipe or device cannot make it hang. "+
			"If you need its data, use bash with a timeout, e.g. `timeout 5 head -c 10000 %s`.", shown, err, shown)), false
	}
	return nil, ErrorResult(fmt.Sprintf("Cannot read %s: %v", shown, err)), false
}

// ImageMime detects the image types pi supports (png, jpeg, gif, webp)
// by their magic bytes; "" for anything else.
func ImageMime(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// binaryReason says why a file's head looks binary, or "" for text: any
// NUL byte, or more than one invalid UTF-8 sequence in ten bytes.
func binaryReason(b []byte) string {
	if bytes.IndexByte(b, 0) >= 0 {
		return "it contains NUL bytes"
	}
	invalid := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 && !(len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:])) {
			invalid++
		}
		i += n
	}
	if invalid*10 > len(b) {
		return "most of it is not valid UTF-8 text"
	}
	return ""
}

func readImage(r io.Reader, shown, mime string, env *Env) Result {
	data, err := io.ReadAll(io.LimitReader(r, maxImageBytes+1))
	if err != nil {
		return ErrorResult(fmt.Sprintf("Cannot read %s: %v", shown, err))
	}
	if len(data) > maxImageBytes {
		return ErrorResult(fmt.Sprintf("Image %s is larger than the %s limit. Make a smaller copy with bash (e.g. ImageMagick's convert -resize) and read that.",
			shown, formatSize(maxImageBytes)))
	}
	res := Result{Content: []ai.Content{
		ai.TextContent(fmt.Sprintf("Read image file [%s]", mime)),
		ai.ImageContent(base64.StdEncoding.EncodeToString(data), mime),
	}}
	if env != nil && env.Model != nil {
		if m := env.Model(); !m.Images {
			res.Details = ReadDetails{ImageUnsupportedByModel: m.ID}
		}
	}
	return res
}
