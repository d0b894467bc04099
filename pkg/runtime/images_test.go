package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// screenshot is a tool whose result holds two images; with a release
// channel it waits for it before answering, so a test can switch the
// model while it runs.
type screenshot struct{ started, release chan struct{} }

func (s screenshot) Specs() []ai.ToolSpec {
	return []ai.ToolSpec{{Name: "shot", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (s screenshot) Execute(ctx context.Context, _ ai.Content, _ func(tools.Result)) tools.Result {
	if s.release != nil {
		close(s.started)
		select {
		case <-s.release:
		case <-ctx.Done():
		}
	}
	return tools.Result{Content: []ai.Content{ai.TextContent("two shots"), ai.ImageContent("QUFB", "image/png"), ai.ImageContent("QkJC", "image/png")}}
}

// userWithImage is a prompt with a text and an image attached.
func userWithImage() ai.Message {
	return ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("look"), ai.ImageContent("WldW", "image/jpeg")}, Timestamp: 1}
}

func contentTypes(cs []ai.Content) []string {
	var out []string
	for _, c := range cs {
		if c.Type == ai.TypeText {
			out = append(out, c.Text)
		} else {
			out = append(out, c.Type)
		}
	}
	return out
}

// imagesIn counts the image blocks of a role's messages in entries.
func imagesIn(entries []session.Entry, role string) int {
	n := 0
	for _, e := range entries {
		if e.Message == nil || e.Message.Role != role {
			continue
		}
		for _, c := range e.Message.Content {
			if c.Type == ai.TypeImage {
				n++
			}
		}
	}
	return n
}

// A model that takes no images is sent a text in their place, the
// user's and the tool's wording each; the session and the run's result
// keep the images.
func TestImagesOmittedForAModelThatTakesNone(t *testing.T) {
	s := store(t)
	info := ai.Info{ID: "text-only", Provider: "faux", API: "faux", ContextWindow: 100_000}
	m := faux.New(faux.Call("shot", `{}`), faux.Text("seen")).WithInfo(info)
	r, err := New(Config{Model: info}, Deps{Model: m, Session: s, Tools: screenshot{}, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Dispose(context.Background())
	res, err := r.Prompt(context.Background(), userWithImage())
	if err != nil || res.Err != nil {
		t.Fatalf("run: %v / %v", err, res.Err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if got, want := contentTypes(reqs[0].Messages[0].Content), []string{"look", ai.ImageOmitted}; !slices.Equal(got, want) {
		t.Fatalf("the first request's prompt is %q, want %q", got, want)
	}
	sent := reqs[1].Messages
	if got, want := contentTypes(sent[0].Content), []string{"look", ai.ImageOmitted}; !slices.Equal(got, want) {
		t.Fatalf("the second request's prompt is %q, want %q", got, want)
	}
	if got, want := contentTypes(sent[2].Content), []string{"two shots", ai.ToolImageOmitted}; sent[2].Role != ai.RoleToolResult || !slices.Equal(got, want) {
		t.Fatalf("the second request's %s is %q, want the tool result %q", sent[2].Role, got, want)
	}
	if u, tr := imagesIn(s.Entries(), ai.RoleUser), imagesIn(s.Entries(), ai.RoleToolResult); u != 1 || tr != 2 {
		t.Fatalf("the session keeps %d of the prompt's images and %d of the tool's, want 1 and 2", u, tr)
	}
	if got := contentTypes(res.Messages[2].Content); !slices.Equal(got, []string{"two shots", "image", "image"}) {
		t.Fatalf("the run's tool result is %q, want its images", got)
	}
}

// Whether images are sent is decided for each request by the model in
// use then: a run that starts on a model taking images and is switched
// to one that takes none sends them to the first and not to the second;
// switched back, they are sent again.
func TestImagesFollowTheModelInUseAtEachRequest(t *testing.T) {
	seeing := ai.Info{ID: "sees", Provider: "faux", API: "faux", ContextWindow: 100_000, Images: true}
	blind := ai.Info{ID: "blind", Provider: "faux", API: "faux", ContextWindow: 100_000}
	a := faux.New(faux.Call("shot", `{}`), faux.Text("again")).WithInfo(seeing)
	b := faux.New(faux.Text("from blind")).WithInfo(blind)
	tool := screenshot{started: make(chan struct{}), release: make(chan struct{})}
	r, err := New(Config{Model: seeing}, Deps{Model: a, Session: store(t), Tools: tool, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Dispose(context.Background())
	done := make(chan error, 1)
	go func() {
		res, err := r.Prompt(context.Background(), userWithImage())
		if err == nil {
			err = res.Err
		}
		done <- err
	}()
	<-tool.started
	if err := r.SetModel(b, blind, ""); err != nil {
		t.Fatal(err)
	}
	close(tool.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := contentTypes(a.Requests()[0].Messages[0].Content); !slices.Equal(got, []string{"look", "image"}) {
		t.Fatalf("the model taking images was sent %q, want the image", got)
	}
	sent := b.Requests()[0].Messages
	if got := contentTypes(sent[0].Content); !slices.Equal(got, []string{"look", ai.ImageOmitted}) {
		t.Fatalf("the model switched to was sent the prompt %q, want the image left out", got)
	}
	if got := contentTypes(sent[2].Content); !slices.Equal(got, []string{"two shots", ai.ToolImageOmitted}) {
		t.Fatalf("the model switched to was sent the tool result %q, want the images left out", got)
	}
	if err := r.SetModel(a, seeing, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Prompt(context.Background(), ai.UserText("and now?", 2)); err != nil {
		t.Fatal(err)
	}
	last := a.Requests()[1].Messages
	if got := contentTypes(last[2].Content); !slices.Equal(got, []string{"two shots", "image", "image"}) {
		t.Fatalf("switched back, the model taking images was sent the tool result %q, want its images", got)
	}
}
