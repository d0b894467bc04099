package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServerMain is "gopi-mcp-server", an MCP stdio server made with the
// Go SDK for the scripts (no npm needed):
//
//	gopi-mcp-server [-list error|hang] [-tools NAME,...] [-pidfile FILE]
//
// -list makes tools/list answer with an error or never; -tools adds tools
// of those names that answer "NAME: ARGUMENTS"; -pidfile writes its pid. Its tools:
//
//	echo {text}        "echo: TEXT"
//	noise              writes a line that is not JSON on stdout, then answers "after the noise"
//	huge               answers with a frame of 20 MiB
//	structured {bytes} answers "done", with structured content of about that many bytes
//	wait               answers only when the call is cancelled
func mcpServerMain() {
	list := flag.String("list", "", "")
	names := flag.String("tools", "", "")
	pidfile := flag.String("pidfile", "", "")
	flag.Parse()
	if *pidfile != "" {
		if err := os.WriteFile(*pidfile, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	out := &lockedWriter{w: os.Stdout}
	s := sdk.NewServer(&sdk.Implementation{Name: "gopi-script", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	echo := func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return scriptText("echo: " + string(r.Params.Arguments)), nil
	}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the arguments", InputSchema: obj}, echo)
	for _, n := range strings.Split(*names, ",") {
		if n != "" {
			s.AddTool(&sdk.Tool{Name: n, Description: "Echo the arguments", InputSchema: obj}, func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return scriptText(n + ": " + string(r.Params.Arguments)), nil
			})
		}
	}
	s.AddTool(&sdk.Tool{Name: "noise", Description: "Writes noise", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		out.Write([]byte("this is not JSON\n"))
		return scriptText("after the noise"), nil
	})
	s.AddTool(&sdk.Tool{Name: "huge", Description: "A huge answer", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return scriptText(strings.Repeat("x", 20<<20)), nil
	})
	s.AddTool(&sdk.Tool{Name: "structured", Description: "Structured content", InputSchema: obj}, func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct {
			Bytes int `json:"bytes"`
		}
		_ = json.Unmarshal(r.Params.Arguments, &in)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}},
			StructuredContent: map[string]any{"blob": strings.Repeat("y", in.Bytes)}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "wait", Description: "Never answers", InputSchema: obj}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done()
		return scriptText("cancelled"), nil
	})
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			switch {
			case method != "tools/list":
			case *list == "error":
				return nil, errors.New("the tool index is corrupt")
			case *list == "hang":
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	err := s.Run(context.Background(), &sdk.IOTransport{Reader: os.Stdin, Writer: out})
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func scriptText(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// lockedWriter lets a tool write to stdout between the SDK's frames.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
