package rpc

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"gopi/internal/rpcdrive"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
)

// A command line over Options.MaxLine is answered success false,
// naming the bound, and skipped to its LF without being held: reading a
// 256 MiB line allocates nothing like its size. The next line is served.
func TestRPCLineOverTheBound(t *testing.T) {
	rt, err := gruntime.New(gruntime.Config{Model: faux.Info}, gruntime.Deps{Model: faux.New(), Session: session.NewMemoryStore("/work/proj", session.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := NewServer(outW, io.Discard, Opened{Runtime: rt, Model: faux.Info}, benchHost{}, Options{MaxLine: 1000})
	done := make(chan error, 1)
	go func() {
		err := r.Serve(context.Background(), inR)
		outW.Close()
		done <- err
	}()
	const long = 256 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	go func() {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		_, _ = io.WriteString(inW, `{"id":"big","type":"prompt","message":"`)
		for range long >> 20 {
			if _, err := inW.Write(chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(inW, "\"}\n"+`{"id":"next","type":"get_state"}`+"\n")
		inW.Close()
	}()
	recs := rpcdrive.NewReader(outR)
	first, err := recs.Next()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	want := `{"type":"response","schemaVersion":1,"command":"parse","success":false,"error":"Failed to parse command: the line is longer than 1000 bytes, the most gopi rpc reads in one command (maxPromptBytes and room for images): it was skipped; send a shorter prompt or smaller images, or raise maxPromptBytes"}`
	if string(first) != want {
		t.Fatalf("the long line was answered\n%s\nwant\n%s", first, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("reading a %d-byte line allocated %d bytes", long, grew)
	}
	second, err := recs.Next()
	if err != nil || !strings.HasPrefix(string(second), `{"id":"next","type":"response","schemaVersion":1,"command":"get_state","success":true`) {
		t.Fatalf("the next line was answered %s (%v)", second, err)
	}
	for {
		if _, err := recs.Next(); err != nil {
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
