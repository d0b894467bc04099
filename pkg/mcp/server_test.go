package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

// testServer is an MCP server made with the SDK's server side: the test
// binary runs it over stdio (GOPI_MCP_TEST_SERVER, see TestMain), and the
// HTTP tests serve it in process. Its tools:
//
//	echo {text}        "echo: TEXT"
//	add {a, b}         the sum, as text and structured content
//	image              a 1x1 png
//	big {lines}        that many numbered lines
//	bigstruct {lines}  that many numbered lines as structured content only
//	fail               an error result (isError)
//	wait               answers only when the call is cancelled
//	grow               adds the tool "grown" (tools/list_changed)
//	crash              the server exits with code 7 in the middle of the call
//	pid                its process id
//	spawn              starts a child that sleeps (this binary); answers with its pid
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "gopi-test", Version: "1"}, nil)
	type textIn struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
		return text("echo: " + in.Text), nil, nil
	})
	type addIn struct {
		A int `json:"a" jsonschema:"the first number"`
		B int `json:"b"`
	}
	type addOut struct {
		Sum int `json:"sum"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two whole numbers"}, func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	none := func(name, desc string, h func(context.Context) *sdk.CallToolResult) {
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return h(ctx), nil
		})
	}
	none("image", "A tiny image", func(context.Context) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a pixel:"}, &sdk.ImageContent{Data: pixelPNG, MIMEType: "image/png"}}}
	})
	type bigIn struct {
		Lines int `json:"lines"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Many lines"}, func(_ context.Context, _ *sdk.CallToolRequest, in bigIn) (*sdk.CallToolResult, any, error) {
		var b strings.Builder
		for i := range in.Lines {
			fmt.Fprintf(&b, "line %d\n", i+1)
		}
		return text(b.String()), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "bigstruct", Description: "Large structured content"}, func(_ context.Context, _ *sdk.CallToolRequest, in bigIn) (*sdk.CallToolResult, any, error) {
		lines := make([]string, in.Lines)
		for i := range lines {
			lines[i] = fmt.Sprintf("line %d", i+1)
		}
		return nil, map[string]any{"lines": lines}, nil
	})
	none("fail", "Always fails", func(context.Context) *sdk.CallToolResult {
		r := text("the widget is broken")
		r.IsError = true
		return r
	})
	none("wait", "Never answers", func(ctx context.Context) *sdk.CallToolResult {
		<-ctx.Done()
		return text("cancelled")
	})
	none("grow", "Adds a tool", func(context.Context) *sdk.CallToolResult {
		s.AddTool(&sdk.Tool{Name: "grown", Description: "Added later", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("grown here"), nil
		})
		return text("grew")
	})
	none("crash", "Exits mid-call", func(context.Context) *sdk.CallToolResult {
		fmt.Fprintln(os.Stderr, "fatal: the widget store is gone")
		os.Exit(7)
		return nil
	})
	none("pid", "Its process id", func(context.Context) *sdk.CallToolResult {
		return text(strconv.Itoa(os.Getpid()))
	})
	none("spawn", "Starts a child", func(context.Context) *sdk.CallToolResult {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "GOPI_MCP_TEST_SERVER=sleep")
		if err := c.Start(); err != nil {
			return text(err.Error())
		}
		return text(strconv.Itoa(c.Process.Pid))
	})
	return s
}

// host is gopi in small: a manager with one stubborn server, busy in a
// call; it prints the server's pid and waits to be killed.
func host() {
	exe, _ := os.Executable()
	s := mcp.Server{Name: "h", Command: exe, Env: map[string]string{"GOPI_MCP_TEST_SERVER": "stubborn"}}
	m := mcp.Start(context.Background(), []mcp.Server{s}, mcp.Options{Environ: os.Environ()})
	ts := m.Tools()
	byName := map[string]tools.Tool{}
	for _, t := range ts {
		byName[t.Spec().Name] = t
	}
	r, err := byName["mcp__h__pid"].Run(context.Background(), tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil || len(r.Content) == 0 {
		fmt.Fprintln(os.Stderr, "host: no pid", err, m.Statuses()[0].Message())
		os.Exit(1)
	}
	fmt.Println(r.Content[0].Text)
	go func() {
		_, _ = byName["mcp__h__wait"].Run(context.Background(), tools.Call{Args: json.RawMessage(`{}`)})
	}()
	select {}
}

// failList makes the server's tools/list fail as mode says: "listerror"
// answers with an error, "listhang" never answers, "listdeep" lists a
// tool whose schema is nested 5,000 deep, "odd" lists tools with a schema
// that is an array, a 2 MB description and a schema with a 100,000-value
// enum.
//
// A "listhang" answer waits for release too (nil: never): a server in
// process ends its session only once its handlers have returned.
func failList(s *sdk.Server, mode string, release <-chan struct{}) {
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			switch mode {
			case "listerror":
				return nil, errors.New("the tool index is corrupt")
			case "listhang":
				select {
				case <-ctx.Done():
				case <-release:
				}
				return nil, errors.New("no tools today")
			case "listdeep":
				schema := map[string]any{"type": "object"}
				for range 5000 {
					schema = map[string]any{"type": "object", "properties": map[string]any{"a": schema}}
				}
				return &sdk.ListToolsResult{Tools: []*sdk.Tool{{Name: "deep", InputSchema: schema}}}, nil
			case "odd":
				obj := map[string]any{"type": "object"}
				enum := make([]any, 100000)
				for i := range enum {
					enum[i] = fmt.Sprintf("choice-%d", i)
				}
				return &sdk.ListToolsResult{Tools: []*sdk.Tool{
					{Name: "plain", Description: "Fine", InputSchema: obj},
					{Name: "listy", InputSchema: []any{"not", "a", "schema"}},
					{Name: "wordy", Description: strings.Repeat("many words ", 200000), InputSchema: obj},
					{Name: "choosy", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"c": map[string]any{"enum": enum}}}},
				}}, nil
			}
			return next(ctx, method, req)
		}
	})
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// pixelPNG is a 1x1 png.
var pixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// serveStdio runs the test server on stdin and stdout. "stubborn" ignores
// SIGTERM and stays after stdin closes, so only SIGKILL ends it.
func serveStdio(mode string) {
	fmt.Fprintln(os.Stderr, "test server starting")
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "cannot open the widget store")
		os.Exit(3)
	}
	if mode == "sleep" { // a server's child
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if mode == "host" {
		host()
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	srv := testServer()
	failList(srv, mode, nil)
	err := srv.Run(context.Background(), &sdk.StdioTransport{})
	if mode == "stubborn" {
		select {}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
