package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/extension"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echoTools is one tool, echo, answering its arguments, and an MCP
// server's tool of the same kind.
type echoTools struct{}

func (echoTools) Specs() []ai.ToolSpec {
	return []ai.ToolSpec{{Name: "echo", Description: "echo", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "mcp__files__echo", Description: "echo", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (echoTools) Execute(_ context.Context, c ai.Content, _ func(tools.Result)) tools.Result {
	return tools.TextResult("echo " + string(c.Arguments))
}

// retryingModel fails the first attempt of each request and answers on
// the second, as an adapter's retry runner streams it.
type retryingModel struct{ answer string }

func (m retryingModel) Stream(_ context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		if !ai.NewBuilder(faux.Info, 10, yield).Start() {
			return
		}
		if !yield(ai.Event{Type: ai.EventRetryStart, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 4, Delay: 1500e6, ErrorMessage: "overloaded (HTTP 529)"}}) {
			return
		}
		b := ai.NewBuilder(faux.Info, 20, yield)
		if !b.Start() {
			return
		}
		i, ok := b.TextStart()
		if !ok || !b.TextDelta(i, m.answer) || !b.TextEnd(i, "") {
			return
		}
		b.Done(ai.StopStop)
	}
}

type scenario struct {
	model    ai.Model
	cfg      runtime.Config
	store    *session.MemoryStore
	host     *extension.Host
	prompt   string
	ctx      context.Context
	telCfg   func(*Config)
	denials  func() []sandbox.Denial
	scrub    func(string) string
	endClass string
}

// record runs the scenario with telemetry sent to a receiver and returns
// what the receiver got and what was written to stderr.
func record(t *testing.T, sc scenario) ([]gotRequest, string) {
	t.Helper()
	rcv := newReceiver(t)
	cfg := Config{Enabled: true, Endpoint: rcv.srv.URL + "/v1/traces", Protocol: ProtoProtobuf, ServiceName: "gopi",
		Sampler: "parentbased_always_on", SamplerArg: 1, Headers: map[string]string{}}
	if sc.telCfg != nil {
		sc.telCfg(&cfg)
	}
	var stderr strings.Builder
	tel := New(cfg, Options{Version: "test", Scrub: sc.scrub, Stderr: &stderr})
	if sc.store == nil {
		sc.store = session.NewMemoryStore("/proj", session.Options{})
	}
	if sc.cfg.Model.ID == "" {
		sc.cfg.Model = faux.Info
	}
	deps := runtime.Deps{Model: sc.model, Session: sc.store, Tools: echoTools{}}
	if sc.host != nil {
		deps.Extensions = sc.host
	}
	r, err := runtime.New(sc.cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Dispose(context.Background())
	prompt := sc.prompt
	if prompt == "" {
		prompt = "look around"
	}
	msg := ai.UserText(prompt, 1)
	rec := tel.Start(Info{Provider: "faux", Model: "faux", SessionID: sc.store.Header().ID, Prompt: []ai.Message{msg}, Denials: sc.denials})
	unsub := r.Control().Subscribe(func(e agent.Event) { rec.Event(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
	ctx := sc.ctx
	if ctx == nil {
		ctx = t.Context()
	}
	res, err := r.Prompt(ctx, msg)
	unsub()
	if err != nil {
		t.Fatal(err)
	}
	class := sc.endClass
	if res.Err != nil && class == "" {
		class = string(ai.ClassOf(res.Err))
	}
	rec.End(End{Reason: string(res.Reason), ExitCode: 3, Steps: res.Steps, Usage: res.Usage, SessionFile: "/proj/s.jsonl", LeafID: res.Leaf, Class: class, Err: res.Err})
	return rcv.requests(t), stderr.String()
}

// only returns the one request's spans.
func only(t *testing.T, reqs []gotRequest) []gotSpan {
	t.Helper()
	if len(reqs) != 1 {
		t.Fatalf("%d export requests, want 1", len(reqs))
	}
	return reqs[0].Spans
}

func named(spans []gotSpan, name string) []gotSpan {
	var out []gotSpan
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func root(t *testing.T, spans []gotSpan) gotSpan {
	t.Helper()
	r := named(spans, "invoke_agent gopi")
	if len(r) != 1 {
		t.Fatalf("%d invoke_agent spans in %v", len(r), names(spans))
	}
	return r[0]
}

func names(spans []gotSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

func wantAttrs(t *testing.T, s gotSpan, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got, ok := s.Attrs[k]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("span %q: %s = %v (set: %v), want %v", s.Name, k, got, ok, v)
		}
	}
}

func TestSpanTreeOfTwoRequestsAndATool(t *testing.T) {
	for _, proto := range []string{ProtoProtobuf, ProtoJSON} {
		t.Run(proto, func(t *testing.T) {
			reqs, stderr := record(t, scenario{model: faux.New(faux.Call("echo", `{"x":1}`), faux.Text("done")),
				telCfg: func(c *Config) { c.Protocol = proto; c.Headers["Authorization"] = "Bearer collector-token" }})
			if stderr != "" {
				t.Errorf("stderr: %q", stderr)
			}
			if got := reqs[0].Header.Get("Authorization"); got != "Bearer collector-token" {
				t.Errorf("Authorization header %q", got)
			}
			if reqs[0].Resource["service.name"] != "gopi" || reqs[0].Scope != "gopi" {
				t.Errorf("resource %v scope %q", reqs[0].Resource, reqs[0].Scope)
			}
			spans := only(t, reqs)
			if want := []string{"chat faux", "chat faux", "execute_tool echo", "invoke_agent gopi"}; !slices.Equal(names(spans), want) {
				t.Fatalf("spans %v, want %v", names(spans), want)
			}
			rt := root(t, spans)
			if rt.ParentID != "" || rt.Kind != 1 || len(rt.TraceID) != 32 || rt.Flags&0x1 == 0 {
				t.Errorf("root: parent %q kind %d trace %q flags %#x", rt.ParentID, rt.Kind, rt.TraceID, rt.Flags)
			}
			wantAttrs(t, rt, map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "gopi", "gen_ai.provider.name": "faux",
				"gen_ai.request.model": "faux", "gopi.run.reason": "stop", "gopi.run.steps": 2, "gopi.run.exit_code": 3,
				"gopi.session.file": "/proj/s.jsonl"})
			if rt.Attrs["gen_ai.conversation.id"] == "" || rt.Attrs["gen_ai.conversation.id"] == nil {
				t.Errorf("root has no conversation id: %v", rt.Attrs)
			}
			for _, s := range spans {
				if s.Name != rt.Name && (s.ParentID != rt.SpanID || s.TraceID != rt.TraceID) {
					t.Errorf("%s: parent %s trace %s, want the root %s %s", s.Name, s.ParentID, s.TraceID, rt.SpanID, rt.TraceID)
				}
				if s.End < s.Start {
					t.Errorf("%s ends before it starts", s.Name)
				}
			}
			chats := named(spans, "chat faux")
			wantAttrs(t, chats[0], map[string]any{"gen_ai.operation.name": "chat", "gen_ai.response.model": "faux",
				"gen_ai.response.finish_reasons": []any{"tool_call"}, "gen_ai.conversation.id": rt.Attrs["gen_ai.conversation.id"]})
			wantAttrs(t, chats[1], map[string]any{"gen_ai.response.finish_reasons": []any{"stop"}})
			if chats[0].Kind != 3 {
				t.Errorf("chat kind %d, want client (3)", chats[0].Kind)
			}
			if _, ok := chats[0].Attrs["gen_ai.usage.input_tokens"].(int64); !ok {
				t.Errorf("chat has no input tokens: %v", chats[0].Attrs)
			}
			if v, ok := rt.Attrs["gopi.run.time_to_first_request"].(float64); !ok || v < 0 {
				t.Errorf("root has no time to the first request: %v", rt.Attrs)
			}
			if _, ok := chats[1].Attrs["gopi.response.time_to_first_token"]; !ok {
				t.Errorf("chat has no time to first token: %v", chats[1].Attrs)
			}
			tool := named(spans, "execute_tool echo")[0]
			wantAttrs(t, tool, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo"})
			if tool.Attrs["gen_ai.tool.call.id"] == "" || tool.StatusCode != 0 {
				t.Errorf("tool: %v status %d", tool.Attrs, tool.StatusCode)
			}
			// Content is not captured unless asked for.
			for _, s := range spans {
				for _, k := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
					if _, ok := s.Attrs[k]; ok {
						t.Errorf("%s exports %s without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", s.Name, k)
					}
				}
			}
		})
	}
}

func TestContentCapturedAndScrubbed(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	secrets := tools.NewSecrets(tools.Secret{Name: "API_KEY", Value: secret})
	reqs, _ := record(t, scenario{model: faux.New(faux.Call("echo", `{"key":"`+secret+`"}`), faux.Text("the key is "+secret)),
		prompt: "use " + secret, scrub: secrets.Scrub, telCfg: func(c *Config) { c.CaptureContent = true }})
	spans := only(t, reqs)
	all := fmt.Sprint(spans)
	if strings.Contains(all, secret) {
		t.Errorf("a secret was exported: %s", all)
	}
	rt := root(t, spans)
	if in, _ := rt.Attrs["gen_ai.input.messages"].(string); !strings.Contains(in, "use ") {
		t.Errorf("input messages %q", in)
	}
	tool := named(spans, "execute_tool echo")[0]
	if args, _ := tool.Attrs["gen_ai.tool.call.arguments"].(string); !strings.Contains(args, "key") {
		t.Errorf("tool arguments %q", args)
	}
	chat := named(spans, "chat faux")[1]
	if out, _ := chat.Attrs["gen_ai.output.messages"].(string); !strings.Contains(out, "the key is") {
		t.Errorf("output messages %q", out)
	}
}

func TestRetryIsAnEventOfItsChatSpan(t *testing.T) {
	spans := only(t, first(record(t, scenario{model: retryingModel{answer: "fine"}})))
	chats := named(spans, "chat faux")
	if len(chats) != 1 {
		t.Fatalf("%d chat spans, want one for the retried request: %v", len(chats), names(spans))
	}
	var retry *gotEvent
	for i, e := range chats[0].Events {
		if e.Name == "gen_ai.retry" {
			retry = &chats[0].Events[i]
		}
	}
	if retry == nil {
		t.Fatalf("no retry event: %+v", chats[0].Events)
	}
	if retry.Attrs["gopi.retry.reason"] != "overloaded (HTTP 529)" || retry.Attrs["gopi.retry.delay_ms"] != int64(1500) {
		t.Errorf("retry event %v", retry.Attrs)
	}
}

func first[A, B any](a A, _ B) A { return a }

func TestCompactionIsASpan(t *testing.T) {
	s := session.NewMemoryStore("/proj", session.Options{})
	parent := ""
	for i := range 10 {
		for _, m := range []ai.Message{ai.UserText(fmt.Sprintf("question %d %s", i, strings.Repeat("q", 400)), 1),
			{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(fmt.Sprintf("answer %d %s", i, strings.Repeat("a", 400)))}, StopReason: ai.StopStop}} {
			e, err := s.Append(t.Context(), session.MessageEntry(parent, m))
			if err != nil {
				t.Fatal(err)
			}
			parent = e.ID
		}
	}
	cfg := runtime.Config{ActiveLeaf: &parent, Model: ai.Info{ID: "faux", Provider: "faux", ContextWindow: 2400},
		Compaction: runtime.Compaction{ReserveTokens: 800, KeepRecentTokens: 300}}
	spans := only(t, first(record(t, scenario{model: faux.New(faux.Text("## Goal\nSUMMARY"), faux.Text("the answer")), cfg: cfg, store: s})))
	c := named(spans, "compaction")
	if len(c) != 1 {
		t.Fatalf("spans %v, want one compaction", names(spans))
	}
	rt := root(t, spans)
	if c[0].ParentID != rt.SpanID || c[0].Attrs["gopi.compaction.reason"] == nil || c[0].StatusCode != 0 {
		t.Errorf("compaction span %+v", c[0])
	}
	if tb, _ := c[0].Attrs["gopi.compaction.tokens_before"].(int64); tb <= 0 {
		t.Errorf("compaction tokens before %v", c[0].Attrs)
	}
	if retry, ok := c[0].Attrs["gopi.compaction.will_retry"].(bool); !ok || retry {
		t.Errorf("compaction will_retry %v (%T), want false", c[0].Attrs["gopi.compaction.will_retry"], c[0].Attrs["gopi.compaction.will_retry"])
	}
}

func TestHookDenialOnToolSpan(t *testing.T) {
	host := extension.NewHost(extension.Options{})
	host.BeforeTool("guard", func(context.Context, extension.Call) extension.Decision { return extension.Deny("not today") })
	spans := only(t, first(record(t, scenario{model: faux.New(faux.Call("echo", `{}`), faux.Text("ok")), host: host})))
	tool := named(spans, "execute_tool echo")
	if len(tool) != 1 {
		t.Fatalf("spans %v", names(spans))
	}
	wantAttrs(t, tool[0], map[string]any{"gopi.hook.denied_by": "guard", "gopi.hook.reason": "not today", "error.type": "tool_error"})
	if tool[0].StatusCode != 2 {
		t.Errorf("denied tool's status %d, want error (2)", tool[0].StatusCode)
	}
}

// blockingModel starts an answer, then waits for the context's end.
type blockingModel struct{ started chan struct{} }

func (m blockingModel) Stream(ctx context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(faux.Info, 10, yield)
		if !b.Start() {
			return
		}
		close(m.started)
		<-ctx.Done()
		b.Fail(ctx, ctx.Err())
	}
}

func TestAbortedRun(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	m := blockingModel{started: make(chan struct{})}
	go func() { <-m.started; cancel() }()
	spans := only(t, first(record(t, scenario{model: m, ctx: ctx})))
	rt := root(t, spans)
	wantAttrs(t, rt, map[string]any{"gopi.run.reason": "aborted", "error.type": "aborted"})
	if rt.StatusCode != 2 {
		t.Errorf("aborted root status %d", rt.StatusCode)
	}
	chat := named(spans, "chat faux")
	if len(chat) != 1 || chat[0].StatusCode != 2 {
		t.Errorf("chat spans %+v", chat)
	}
}

func TestBudgetStop(t *testing.T) {
	cfg := runtime.Config{Limits: loop.Limits{Tokens: 1}}
	spans := only(t, first(record(t, scenario{model: faux.New(faux.Call("echo", `{}`), faux.Text("never")), cfg: cfg, endClass: "budget"})))
	rt := root(t, spans)
	wantAttrs(t, rt, map[string]any{"gopi.run.reason": "budgetTokens", "gopi.run.steps": 1, "error.type": "budget"})
	if rt.StatusCode != 2 || !strings.Contains(rt.StatusMsg, "budget") {
		t.Errorf("root status %d %q", rt.StatusCode, rt.StatusMsg)
	}
	if n := len(named(spans, "chat faux")); n != 1 {
		t.Errorf("%d chat spans, want 1", n)
	}
}

func TestTraceParentMakesTheRunAChild(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	spans := only(t, first(record(t, scenario{model: faux.New(faux.Text("hi")), telCfg: func(c *Config) {
		c.TraceParent, c.TraceState = tp, "vendor=x"
	}})))
	rt := root(t, spans)
	if rt.TraceID != "0af7651916cd43dd8448eb211c80319c" || rt.ParentID != "b7ad6b7169203331" || rt.TraceState != "vendor=x" {
		t.Errorf("root trace %s parent %s state %q", rt.TraceID, rt.ParentID, rt.TraceState)
	}
	if rt.Flags&0x300 != 0x300 {
		t.Errorf("root flags %#x: the parent is remote", rt.Flags)
	}
}

func TestSamplerOffSendsNothing(t *testing.T) {
	reqs, _ := record(t, scenario{model: faux.New(faux.Text("hi")), telCfg: func(c *Config) { c.Sampler = "always_off" }})
	if len(reqs) != 0 {
		t.Errorf("%d requests with always_off", len(reqs))
	}
}

// The sandbox's refusals made while a tool ran are events of its span;
// an MCP tool's span names its server.
func TestSandboxDenialAndMCPServerOnToolSpans(t *testing.T) {
	var mu sync.Mutex
	var denials []sandbox.Denial
	host := extension.NewHost(extension.Options{})
	host.BeforeTool("recorder", func(_ context.Context, c extension.Call) extension.Decision {
		if c.Name == "echo" {
			mu.Lock()
			denials = append(denials, sandbox.Denial{Tool: "echo", Operation: "write", Target: "/etc/passwd", Rule: "workspace-write"})
			mu.Unlock()
		}
		return extension.Allow()
	})
	list := func() []sandbox.Denial { mu.Lock(); defer mu.Unlock(); return slices.Clone(denials) }
	spans := only(t, first(record(t, scenario{model: faux.New(faux.Call("echo", `{}`), faux.Call("mcp__files__echo", `{}`), faux.Text("ok")),
		host: host, denials: list})))
	echo := named(spans, "execute_tool echo")
	if len(echo) != 1 || len(echo[0].Events) != 1 || echo[0].Events[0].Name != "gopi.sandbox.denied" ||
		echo[0].Events[0].Attrs["gopi.sandbox.target"] != "/etc/passwd" || echo[0].Events[0].Attrs["gopi.sandbox.operation"] != "write" {
		t.Errorf("echo spans %+v", echo)
	}
	mcp := named(spans, "execute_tool mcp__files__echo")
	if len(mcp) != 1 || mcp[0].Attrs["gopi.mcp.server"] != "files" || mcp[0].Attrs["gen_ai.tool.type"] != "extension" || len(mcp[0].Events) != 0 {
		t.Errorf("MCP tool spans %+v", mcp)
	}
}

// Captured content is cut at maxValue after it is scrubbed: a secret
// across the cut leaves no part of itself.
func TestLongContentIsScrubbedBeforeTheCut(t *testing.T) {
	const secret = "ZQXJ0123456789abcdef"
	secrets := tools.NewSecrets(tools.Secret{Name: "API_KEY", Value: secret})
	prefix := len(`[{"role":"user","parts":[{"type":"text","content":"`)
	prompt := strings.Repeat("x", maxValue-prefix-8) + secret + " and more"
	spans := only(t, first(record(t, scenario{model: faux.New(faux.Text("ok")), prompt: prompt, scrub: secrets.Scrub,
		telCfg: func(c *Config) { c.CaptureContent = true }})))
	in, _ := root(t, spans).Attrs["gen_ai.input.messages"].(string)
	if len(in) == 0 || len(in) > maxValue {
		t.Fatalf("input messages of %d bytes, want 1 to %d", len(in), maxValue)
	}
	if strings.Contains(in, secret[:8]) {
		t.Errorf("the start of a secret was exported: %q", in[len(in)-40:])
	}
}
