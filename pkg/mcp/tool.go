package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gopi/internal/pijson"
	"gopi/internal/schemaguard"
	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// Tool is one tool of a server as gopi offers it (tools.Tool): its name
// is mcp__<server>__<tool>, its parameters the server's input schema.
type Tool struct {
	c      *conn
	remote string
	spec   ai.ToolSpec

	once     sync.Once
	resolved *schemaguard.Schema // nil when the schema does not compile
}

// Details are what an MCP tool's result records beside its content.
type Details struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Structured is the result's structuredContent, as the server sent
	// it, when it fits the tools' output limit (tools.DefaultMaxBytes).
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	// StructuredBytes is the size of a structuredContent too large to
	// keep; 0 when it was kept or there was none.
	StructuredBytes int `json:"structuredContentOmittedBytes,omitempty"`
	// Truncated is set when text was cut to the output limits.
	Truncated *tools.Truncation `json:"truncation,omitempty"`
}

var unsafeChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_]`) })

// maxToolName is the longest tool name the model APIs take.
const maxToolName = 64

// Bounds of what one tool adds to every request: its description is cut
// to maxDescription bytes, and a tool whose input schema is larger than
// maxSchema is not offered.
const (
	maxDescription = 4 << 10
	maxSchema      = 64 << 10
)

// adapt names the server's tools: mcp__<server>__<tool> with every
// character other than a letter, digit or _ made _; names that then
// collide, or are longer than 64 characters, end in a hash of the
// server's own name instead. A tool whose input schema is not an object,
// too large, or could never be checked (a $ref cycle that reads no input)
// is left out, and a long description cut: Report hears of each, once.
func (c *conn) adapt(remote []*sdk.Tool) ([]*Tool, error) {
	prefix := "mcp__" + unsafeChars().ReplaceAllString(c.server.Name, "_") + "__"
	count := map[string]int{}
	for _, t := range remote {
		count[unsafeChars().ReplaceAllString(t.Name, "_")]++
	}
	out := make([]*Tool, 0, len(remote))
	for _, t := range remote {
		name := prefix + unsafeChars().ReplaceAllString(t.Name, "_")
		if count[unsafeChars().ReplaceAllString(t.Name, "_")] > 1 || len(name) > maxToolName {
			sum := sha256.Sum256([]byte(t.Name))
			suffix := "_" + hex.EncodeToString(sum[:4])
			name = name[:min(len(name), maxToolName-len(suffix))] + suffix
		}
		params, err := json.Marshal(t.InputSchema)
		if err != nil || string(params) == "null" {
			params = []byte(`{"type":"object"}`)
		}
		switch {
		case !bytes.HasPrefix(bytes.TrimSpace(params), []byte("{")):
			c.noteOnce(t.Name+"\x00schema", fmt.Sprintf("its tool %q is not offered: its inputSchema is not a JSON object schema (%s)", t.Name, preview(params)))
			continue
		case len(params) > maxSchema:
			c.noteOnce(t.Name+"\x00schema", fmt.Sprintf("its tool %q is not offered: its inputSchema is %s, over the %s a tool's schema may take in every request", t.Name, tools.FormatSize(len(params)), tools.FormatSize(maxSchema)))
			continue
		}
		if err := schemaguard.Check(params); errors.Is(err, schemaguard.ErrCycle) {
			c.noteOnce(t.Name+"\x00schema", fmt.Sprintf("its tool %q is not offered: its input schema cannot be used: %v", t.Name, err))
			continue
		}
		desc := t.Description
		if len(desc) > maxDescription {
			c.noteOnce(t.Name+"\x00desc", fmt.Sprintf("the description of its tool %q is %s: only its first %s is sent", t.Name, tools.FormatSize(len(desc)), tools.FormatSize(maxDescription)))
			desc = strings.ToValidUTF8(desc[:maxDescription], "") + "…"
		}
		out = append(out, &Tool{c: c, remote: t.Name, spec: ai.ToolSpec{Name: name, Description: desc, Parameters: params}})
	}
	return out, nil
}

// Spec describes the tool as the server does.
func (t *Tool) Spec() ai.ToolSpec { return t.spec }

// Validate checks a call's arguments against the server's input schema,
// compiled on the first call (draft 2020-12 or draft-07). A schema that
// does not compile checks nothing: the server still checks its input.
func (t *Tool) Validate(args json.RawMessage) error {
	t.once.Do(func() {
		var s jsonschema.Schema
		if json.Unmarshal(t.spec.Parameters, &s) != nil {
			return
		}
		if r, err := schemaguard.Compile(t.spec.Parameters, &s); err == nil {
			t.resolved = r
		}
	})
	if t.resolved == nil {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	return t.resolved.Validate(v)
}

// Run calls the tool on the server, within the call timeout and the
// run's context. A server that is not running, a timeout, an abort and a
// protocol error are error results that say so.
func (t *Tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	if why := t.c.deadReason(); why != "" {
		return tools.ErrorResult(why), nil
	}
	t.c.mu.Lock()
	s := t.c.session
	t.c.mu.Unlock()
	timeout := t.c.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := s.CallTool(cctx, &sdk.CallToolParams{Name: t.remote, Arguments: call.Args})
	switch {
	case err == nil:
		return t.result(res), nil
	case ctx.Err() != nil:
		return tools.ErrorResult(fmt.Sprintf("MCP tool %s aborted", t.spec.Name)), nil
	case cctx.Err() != nil:
		return tools.ErrorResult(fmt.Sprintf("MCP tool %s timed out after %s (set \"timeout\" in seconds on server %s for longer calls)", t.spec.Name, timeout, t.c.server.Name)), nil
	}
	if why := t.c.waitDead(); why != "" {
		return tools.ErrorResult(why), nil
	}
	return tools.ErrorResult(t.c.server.Redact(fmt.Sprintf("MCP server %s: %v", t.c.server.Name, err))), nil
}

// waitDead gives a connection that just failed a call a moment to be
// known dead (its process waited for), and then says why; "" when it
// still runs.
func (c *conn) waitDead() string {
	c.mu.Lock()
	p, done := c.proc, c.done
	c.mu.Unlock()
	var exited <-chan struct{}
	if p != nil {
		exited = p.exited
	}
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-exited:
	case <-done:
	case <-t.C:
		return ""
	}
	for range 100 { // watch records the death right after
		if why := c.deadReason(); why != "" {
			// and reports it: the warning comes before the call's result
			select {
			case <-done:
			case <-time.After(stopGrace):
			}
			return why
		}
		select {
		case <-done:
			return c.deadReason()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return c.deadReason()
}

// maxImageBytes bounds one image a server returns (decoded).
const maxImageBytes = 10 << 20

// result maps the server's answer to content blocks: text and images as
// they are, audio and resources described in text, structured content
// as JSON text when the server sent no text; isError kept; text bounded
// as the built-in tools' output is.
func (t *Tool) result(r *sdk.CallToolResult) tools.Result {
	d := &Details{Server: t.c.server.Name, Tool: t.remote}
	var structured []byte
	if r.StructuredContent != nil {
		if b, err := pijson.Marshal(r.StructuredContent); err == nil {
			structured = b
		}
	}
	if len(structured) > tools.DefaultMaxBytes {
		d.StructuredBytes = len(structured) // the session keeps no more than the model sees
	} else {
		d.Structured = structured
	}
	var blocks []ai.Content
	hasText := false
	for _, c := range r.Content {
		switch v := c.(type) {
		case *sdk.TextContent:
			blocks = append(blocks, ai.TextContent(v.Text))
			hasText = true
		case *sdk.ImageContent:
			mime := tools.ImageMime(v.Data)
			switch {
			case len(v.Data) > maxImageBytes:
				blocks = append(blocks, ai.TextContent(fmt.Sprintf("[image of %s omitted: larger than %s]", tools.FormatSize(len(v.Data)), tools.FormatSize(maxImageBytes))))
			case mime == "":
				blocks = append(blocks, ai.TextContent(fmt.Sprintf("[image (%s) omitted: not png, jpeg, gif or webp]", v.MIMEType)))
			default:
				blocks = append(blocks, ai.ImageContent(base64.StdEncoding.EncodeToString(v.Data), mime))
			}
		case *sdk.AudioContent:
			blocks = append(blocks, ai.TextContent(fmt.Sprintf("[audio (%s, %s) not shown]", v.MIMEType, tools.FormatSize(len(v.Data)))))
		case *sdk.ResourceLink:
			blocks = append(blocks, ai.TextContent(fmt.Sprintf("[resource %s: %s%s]", v.Name, v.URI, mimeNote(v.MIMEType))))
		case *sdk.EmbeddedResource:
			if v.Resource == nil {
				continue
			}
			if v.Resource.Text != "" || v.Resource.Blob == nil {
				blocks = append(blocks, ai.TextContent(fmt.Sprintf("[resource %s%s]\n%s", v.Resource.URI, mimeNote(v.Resource.MIMEType), v.Resource.Text)))
			} else {
				blocks = append(blocks, ai.TextContent(fmt.Sprintf("[resource %s%s: %s of binary data not shown]", v.Resource.URI, mimeNote(v.Resource.MIMEType), tools.FormatSize(len(v.Resource.Blob)))))
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				blocks = append(blocks, ai.TextContent(string(b)))
			}
		}
	}
	if !hasText && structured != nil {
		blocks = append(blocks, ai.TextContent(string(structured)))
	}
	blocks, d.Truncated = bound(blocks)
	if len(blocks) == 0 {
		blocks = []ai.Content{ai.TextContent("(no output)")}
	}
	return tools.Result{Content: blocks, IsError: r.IsError, Details: d}
}

func mimeNote(m string) string {
	if m == "" {
		return ""
	}
	return " (" + m + ")"
}

// bound keeps the text blocks within the tools' output limits together
// (tools.DefaultMaxLines, tools.DefaultMaxBytes), keeping the head; a
// notice says what was cut.
func bound(blocks []ai.Content) ([]ai.Content, *tools.Truncation) {
	total, lines := 0, 0
	for _, b := range blocks {
		if b.Type == ai.TypeText {
			total += len(b.Text)
			lines += strings.Count(b.Text, "\n") + 1
		}
	}
	if total <= tools.DefaultMaxBytes && lines <= tools.DefaultMaxLines {
		return blocks, nil
	}
	leftBytes, leftLines, shown := tools.DefaultMaxBytes, tools.DefaultMaxLines, 0
	var out []ai.Content
	var last tools.Truncation
	for _, b := range blocks {
		if b.Type != ai.TypeText {
			out = append(out, b)
			continue
		}
		if leftBytes <= 0 || leftLines <= 0 {
			continue
		}
		tr := tools.TruncateHead(b.Text, leftLines, leftBytes)
		if tr.Truncated {
			last = tr
		}
		if tr.Content != "" {
			out = append(out, ai.TextContent(tr.Content))
		}
		shown += len(tr.Content)
		leftBytes -= tr.OutputBytes + 1
		leftLines -= tr.OutputLines
	}
	last.TotalBytes, last.MaxBytes, last.MaxLines, last.Truncated = total, tools.DefaultMaxBytes, tools.DefaultMaxLines, true
	out = append(out, ai.TextContent(fmt.Sprintf("[Output truncated: %s of %s shown (%d lines, %s limit). Ask the tool for less, e.g. a narrower query or a page.]",
		tools.FormatSize(shown), tools.FormatSize(total), tools.DefaultMaxLines, tools.FormatSize(tools.DefaultMaxBytes))))
	return out, &last
}
