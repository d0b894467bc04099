package ai

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// roundTrip decodes src and encodes it again; pi's JSON must come back as it went in.
func TestMessageJSONRoundTripsPiMessages(t *testing.T) {
	cases := []struct{ name, src string }{
		{"user text blocks", `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1772359201000}`},
		{"user string content", `{"role":"user","content":"plain","timestamp":1}`},
		{"user image", `{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","data":"iVBORw0=","mimeType":"image/png"}],"timestamp":2}`},
		{"assistant full", `{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig"},{"type":"text","text":"Hello!"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.go"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":13,"cost":{"input":0.1,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.1}},"stopReason":"toolUse","timestamp":1772359202000}`},
		{"assistant error", `{"role":"assistant","content":[],"api":"openai-completions","provider":"openai","model":"gpt","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","errorMessage":"boom","timestamp":3}`},
		{"redacted thinking", `{"role":"assistant","content":[{"type":"thinking","thinking":"opaque","redacted":true}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":4}`},
		{"tool result with details", `{"role":"toolResult","toolCallId":"c1","toolName":"edit","content":[{"type":"text","text":"ok"}],"details":{"diff":"-a\n+b"},"isError":false,"timestamp":5}`},
		{"unknown fields everywhere", `{"role":"assistant","content":[{"type":"text","text":"x","zz":{"deep":[1,2]}}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":6,"responseId":"r1"}`},
		{"unknown block type", `{"role":"user","content":[{"type":"audio","data":"AAA","format":"wav"}],"timestamp":7}`},
		{"bashExecution role", `{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"timestamp":8}`},
		{"custom role", `{"role":"custom","customType":"note","content":[{"type":"text","text":"n"}],"display":true,"details":{"x":1},"timestamp":9}`},
		{"custom role string content", `{"role":"custom","customType":"note","content":"n","model":"kept","usage":{"odd":true},"timestamp":9}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m Message
			if err := json.Unmarshal([]byte(c.src), &m); err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, c.src, string(out)) {
				t.Fatalf("round trip changed the message:\n in  %s\n out %s", c.src, out)
			}
			// A clone encodes the same.
			again, _ := json.Marshal(m.Clone())
			if string(again) != string(out) {
				t.Fatalf("clone encodes differently:\n%s\n%s", out, again)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func TestMessageFieldOrderIsPis(t *testing.T) {
	m := UserText("hi", 42)
	out, _ := json.Marshal(m)
	if want := `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":42}`; string(out) != want {
		t.Fatalf("got %s\nwant %s", out, want)
	}
}

func TestCloneSharesNothing(t *testing.T) {
	var m Message
	src := `{"role":"toolResult","toolCallId":"c","toolName":"t","content":[{"type":"toolCall","id":"x","name":"n","arguments":{"a":1},"k":1}],"details":{"d":1},"isError":true,"timestamp":1,"extra":[1]}`
	if err := json.Unmarshal([]byte(src), &m); err != nil {
		t.Fatal(err)
	}
	c := m.Clone()
	c.Content[0].Arguments[2] = 'X'
	c.Content[0].Extra["k"][0] = '9'
	c.Details[2] = 'X'
	c.Extra["extra"][1] = '7'
	c.Content[0].Name = "changed"
	out, _ := json.Marshal(m)
	if !jsonEqual(t, src, string(out)) {
		t.Fatalf("changing the clone changed the original: %s", out)
	}
}

func TestMalformedJSONIsAnError(t *testing.T) {
	for _, src := range []string{`{"role":"user","content":7}`, `{"role":1}`, `[1]`, `{"role":"assistant","usage":"x"}`} {
		var m Message
		if err := json.Unmarshal([]byte(src), &m); err == nil {
			t.Errorf("%s: want error", src)
		}
	}
}

func TestWithCostUsesPricesPerMillion(t *testing.T) {
	info := Info{Prices: Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	u := info.WithCost(Usage{Input: 1_000_000, Output: 2_000, CacheRead: 10_000, CacheWrite: 100})
	want := Cost{Input: 3, Output: 0.03, CacheRead: 0.003, CacheWrite: 0.000375}
	want.Total = want.Input + want.Output + want.CacheRead + want.CacheWrite
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(u.Cost.Input, want.Input) || !near(u.Cost.Output, want.Output) || !near(u.Cost.CacheRead, want.CacheRead) ||
		!near(u.Cost.CacheWrite, want.CacheWrite) || !near(u.Cost.Total, want.Total) {
		t.Fatalf("cost %+v, want %+v", u.Cost, want)
	}
	if u.TotalTokens != 1_012_100 {
		t.Fatalf("total tokens %d", u.TotalTokens)
	}
	sum := u.Add(u)
	if sum.Input != 2_000_000 || !near(sum.Cost.Total, 2*want.Total) {
		t.Fatalf("add: %+v", sum)
	}
}

func TestBuilderKeepsPartialOnFailureAndMarksAborted(t *testing.T) {
	var evs []Event
	b := NewBuilder(Info{ID: "m", Provider: "p", API: "a"}, 1, func(e Event) bool { evs = append(evs, e); return true })
	b.Start()
	i, _ := b.TextStart()
	b.TextDelta(i, "half")
	j, _ := b.ToolCallStart("c1", "read")
	b.ToolCallDelta(j, `{"path":`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg := b.Fail(ctx, context.Canceled)
	if msg.StopReason != StopAborted || msg.Text() != "half" {
		t.Fatalf("got %s %q", msg.StopReason, msg.Text())
	}
	// Incomplete arguments are kept as _raw so they never run as valid input.
	if args := string(msg.ToolCalls()[0].Arguments); !strings.Contains(args, InvalidArgumentsKey) {
		t.Fatalf("incomplete arguments: %s", args)
	}
	last := evs[len(evs)-1]
	if last.Type != EventError || !errors.Is(last.Err, context.Canceled) {
		t.Fatalf("last event %s %v", last.Type, last.Err)
	}
	// A second terminal call emits nothing more.
	n := len(evs)
	b.Done(StopStop)
	if len(evs) != n {
		t.Fatal("builder emitted after the terminal event")
	}
}

func TestBuilderStopsWhenConsumerStops(t *testing.T) {
	calls := 0
	b := NewBuilder(Info{}, 1, func(Event) bool { calls++; return false })
	if b.Start() {
		t.Fatal("Start should report the consumer stopped")
	}
	i, ok := b.TextStart()
	if ok || b.TextDelta(i, "x") {
		t.Fatal("builder kept going after the consumer stopped")
	}
	if calls != 1 {
		t.Fatalf("yield called %d times after stop", calls)
	}
}

func TestToolArguments(t *testing.T) {
	cases := map[string]string{
		"":              `{}`,
		"  ":            `{}`,
		`{"a":1}`:       `{"a":1}`,
		`{"a":`:         `{"_raw":"{\"a\":"}`,
		`[1,2]`:         `{"_raw":"[1,2]"}`,
		`null`:          `{"_raw":"null"}`,
		` {"b":true} `:  `{"b":true}`,
		`{"a":1} x`:     `{"_raw":"{\"a\":1} x"}`,
		`{"a":1,"a":2}`: `{"a":1,"a":2}`,
		`"{}"`:          `{"_raw":"\"{}\""}`,
	}
	for in, want := range cases {
		if got := string(ToolArguments(in)); got != want {
			t.Errorf("ToolArguments(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestClassOf(t *testing.T) {
	pe := &ProviderError{Class: ClassRateLimit, Status: 429, Message: "slow down"}
	cases := []struct {
		err  error
		want Class
	}{
		{nil, ""},
		{pe, ClassRateLimit},
		{errors.Join(errors.New("x"), pe), ClassRateLimit},
		{context.Canceled, ClassAborted},
		{context.DeadlineExceeded, ClassTimeout},
		{errors.New("other"), ClassInternal},
	}
	for _, c := range cases {
		if got := ClassOf(c.err); got != c.want {
			t.Errorf("ClassOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if !strings.Contains(pe.Error(), "429") {
		t.Errorf("error text %q should carry the status", pe.Error())
	}
}

// Strings are written as pi's JSON.stringify writes them: no HTML escapes,
// U+2028 and U+2029 as they are, invalid UTF-8 as U+FFFD.
func TestMarshalWritesStringsAsPiDoes(t *testing.T) {
	s := "a<b>&c\u2028\u2029\"\\\n\x01\b\f\xff"
	want := `"a<b>&c` + "\u2028\u2029" + `\"\\\n\u0001\b\f` + "\ufffd" + `"`
	cases := []struct {
		name string
		m    Message
		out  string
	}{
		{"user string content", Message{Role: RoleUser, Content: []Content{TextContent(s)}, ContentString: true, Timestamp: 1},
			`{"role":"user","content":` + want + `,"timestamp":1}`},
		{"tool result blocks", Message{Role: RoleToolResult, ToolCallID: s, ToolName: "t", Content: []Content{TextContent(s)}, Details: json.RawMessage(`{"k":"<x>"}`)},
			`{"role":"toolResult","toolCallId":` + want + `,"toolName":"t","content":[{"type":"text","text":` + want + `}],"details":{"k":"<x>"},"isError":false,"timestamp":0}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := c.m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.out {
				t.Fatalf("got  %s\nwant %s", out, c.out)
			}
		})
	}
}

func TestMarshalContent(t *testing.T) {
	cases := []struct {
		content  []Content
		asString bool
		want     string
	}{
		{nil, false, `[]`},
		{[]Content{TextContent("<a>")}, true, `"<a>"`},
		{[]Content{TextContent("<a>")}, false, `[{"type":"text","text":"<a>"}]`},
		{[]Content{ToolCallContent("c", "n", json.RawMessage(`{"a": 1}`))}, true, `[{"type":"toolCall","id":"c","name":"n","arguments":{"a":1}}]`},
	}
	for _, c := range cases {
		got, err := MarshalContent(c.content, c.asString)
		if err != nil || string(got) != c.want {
			t.Errorf("MarshalContent(%v, %v) = %s, %v; want %s", c.content, c.asString, got, err, c.want)
		}
	}
	if _, err := MarshalContent([]Content{ToolCallContent("c", "n", json.RawMessage(`{bad`))}, false); err == nil {
		t.Error("invalid arguments: want error")
	}
}

// CloneMessages gives what Clone gives each message; the copies share
// nothing with the originals or, through appends, with each other.
func TestCloneMessagesMatchesCloneAndIsolates(t *testing.T) {
	ms := []Message{
		{Role: RoleAssistant, Content: []Content{TextContent("a"), ToolCallContent("c1", "read", json.RawMessage(`{"p":1}`)), ToolCallContent("c2", "ls", json.RawMessage(`{}`))}},
		{Role: RoleToolResult, ToolCallID: "c1", Content: []Content{TextContent("r")}, Details: json.RawMessage(`{"d":1}`)},
		{Role: RoleUser, Content: []Content{}},
		{Role: RoleUser},
		{Role: RoleAssistant, Content: []Content{{Type: TypeToolCall, ID: "c3", Arguments: json.RawMessage{}}, {Type: "x", Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}}},
	}
	before, _ := json.Marshal(ms)
	got := CloneMessages(ms)
	for i := range ms {
		want := ms[i].Clone()
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("message %d: %+v, Clone gives %+v", i, got[i], want)
		}
		if (got[i].Content == nil) != (ms[i].Content == nil) {
			t.Fatalf("message %d: nil content changed", i)
		}
	}
	if got[4].Content[0].Arguments == nil {
		t.Fatal("empty arguments became nil")
	}
	// appends and writes to the copies
	got[0].Content = append(got[0].Content, TextContent("appended"))
	got[0].Content[1].Arguments = append(got[0].Content[1].Arguments, " more"...)
	got[0].Content[2].Arguments[1] = 'X'
	got[1].Content[0].Text = "changed"
	got[4].Content[1].Extra["k"][0] = '9'
	if after, _ := json.Marshal(ms); string(after) != string(before) {
		t.Fatalf("the originals changed:\n%s\n%s", before, after)
	}
	if got[1].Content[0].Text != "changed" || got[0].Content[2].ID != "c2" || string(got[0].Content[2].Arguments) != `{X` {
		t.Fatalf("an append reached a neighbour: %+v", got[:2])
	}
	if CloneMessages(nil) != nil {
		t.Fatal("nil became non-nil")
	}
}

// pi 1.6's usage fields (the one-hour cache write, whether the provider
// reported the total) are read and written back; absent, they stay absent.
func TestUsagePi16FieldsKept(t *testing.T) {
	src := `{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":4,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5,"totalFromProvider":true},"cacheWrite1h":3},"stopReason":"stop","timestamp":1}`
	for _, in := range []string{src, strings.Replace(src, `"input":1,`, `"\u0069nput":1,`, 1)} { // fast path and encoding/json
		m, err := decodeUnchecked([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if m.Usage.CacheWrite1h == nil || *m.Usage.CacheWrite1h != 3 || m.Usage.Cost.TotalFromProvider == nil || !*m.Usage.Cost.TotalFromProvider {
			t.Fatalf("%s: usage %+v", in, m.Usage)
		}
		b, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != src {
			t.Errorf("written back as\n%s\nwant\n%s", b, src)
		}
		c := m.Clone()
		*c.Usage.CacheWrite1h = 9
		if *m.Usage.CacheWrite1h != 3 {
			t.Error("Clone shares the one-hour cache count")
		}
	}
	plain := strings.NewReplacer(`,"totalFromProvider":true`, "", `,"cacheWrite1h":3`, "").Replace(src)
	m, err := decodeUnchecked([]byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := m.MarshalJSON(); string(b) != plain {
		t.Errorf("absent fields written as\n%s", b)
	}
	if s := m.Usage.Add(m.Usage); s.CacheWrite1h != nil {
		t.Errorf("sum of absent one-hour counts: %d", *s.CacheWrite1h)
	}
}
