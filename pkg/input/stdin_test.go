package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/resources"
)

// lateStdin is a stdin whose text arrives after a while.
func lateStdin(t *testing.T, text string, after time.Duration) io.Reader {
	t.Helper()
	pr, pw := io.Pipe()
	timer := time.AfterFunc(after, func() {
		pw.Write([]byte(text))
		pw.Close()
	})
	t.Cleanup(func() { timer.Stop(); pw.Close() })
	return pr
}

// syncBuffer is a writer safe to read while another goroutine writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

const waitingNotice = "gopi: waiting for the prompt on stdin (end it with Ctrl-D, or pass --no-stdin)\n"

func TestStdinReadExactlyLimitPlusOne(t *testing.T) {
	r := reader(t)
	r.Limit = 1000
	in := &endless{}
	r.Stdin = in
	if _, err := r.Prompt(context.Background(), "", nil); err == nil {
		t.Fatal("an endless stdin was taken")
	}
	if in.n != 1001 {
		t.Fatalf("read %d bytes of stdin, want the limit and one", in.n)
	}
}

func TestStdinAtTheBound(t *testing.T) {
	r := reader(t)
	r.Limit = 10
	r.Stdin = strings.NewReader("0123456789")
	if got, err := r.Prompt(context.Background(), "", nil); err != nil || got != "0123456789" {
		t.Fatalf("got %q, %v", got, err)
	}
	// Over the bound by its trailing newlines is still over it.
	r.Stdin = strings.NewReader("012345678\n\n")
	_, err := r.Prompt(context.Background(), "", nil)
	usage(t, err, "the prompt on stdin is larger than 10 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
}

func TestPromptArgumentsAtTheBound(t *testing.T) {
	r := reader(t)
	r.Limit = 10
	if got, err := r.Prompt(context.Background(), "head ", []string{"a", "bcd"}); err != nil || got != "head a bcd" {
		t.Fatalf("got %q, %v", got, err)
	}
	_, err := r.Prompt(context.Background(), "head ", []string{"a", "bcde"})
	usage(t, err, "the prompt given as arguments is larger than 10 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
}

func TestPromptStdinAndWordsTogether(t *testing.T) {
	r := reader(t)
	r.Limit = 10
	r.Stdin = strings.NewReader("abcd")
	if got, err := r.Prompt(context.Background(), "", []string{"efgh"}); err != nil || got != "abcd\n\nefgh" {
		t.Fatalf("got %q, %v", got, err)
	}
	r.Stdin = strings.NewReader("abcde")
	_, err := r.Prompt(context.Background(), "", []string{"efgh"})
	usage(t, err, "the prompt (arguments and stdin together) is larger than 10 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
}

func TestPromptStdinEmptyKeepsWords(t *testing.T) {
	r := reader(t)
	r.Stdin = strings.NewReader(" \n")
	if got, err := r.Prompt(context.Background(), "<file>\n", []string{"hi"}); err != nil || got != "<file>\nhi" {
		t.Fatalf("got %q, %v", got, err)
	}
	r.Stdin = nil
	if _, err := r.Prompt(context.Background(), "", []string{" "}); err == nil {
		t.Fatal("a blank prompt was taken")
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("device gone") }

func TestStdinReadError(t *testing.T) {
	r := reader(t)
	r.Stdin = failingReader{}
	_, err := r.Prompt(context.Background(), "", []string{"hi"})
	usage(t, err, "read the prompt from stdin: device gone (give the prompt as arguments, or pass --no-stdin)")
}

func TestStdinInterrupted(t *testing.T) {
	r := reader(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	r.Stdin = pr
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err := r.Prompt(ctx, "", []string{"hi"})
	if !errors.Is(err, context.Canceled) || err.Error() != "interrupted while waiting for the prompt on stdin" {
		t.Fatalf("err = %v", err)
	}
}

func TestStdinNoNoticeBeforeItsTime(t *testing.T) {
	r := reader(t)
	var notice syncBuffer
	r.Notice = &notice
	r.Stdin = lateStdin(t, "late", 100*time.Millisecond)
	if got, err := r.Prompt(context.Background(), "", nil); err != nil || got != "late" {
		t.Fatalf("got %q, %v", got, err)
	}
	if notice.String() != "" {
		t.Fatalf("notice %q before StdinNotice passed", notice.String())
	}
}

func TestStdinNoticeAfterStdinNotice(t *testing.T) {
	if testing.Short() {
		t.Skip("waits StdinNotice")
	}
	t.Parallel()
	r := reader(t)
	var notice syncBuffer
	r.Notice = &notice
	r.Stdin = lateStdin(t, "late", StdinNotice+300*time.Millisecond)
	start := time.Now()
	if got, err := r.Prompt(context.Background(), "", nil); err != nil || got != "late" {
		t.Fatalf("got %q, %v", got, err)
	}
	if notice.String() != waitingNotice {
		t.Fatalf("notice %q after %v", notice.String(), time.Since(start))
	}
}

func TestStdinNoticeHonoursAnyWait(t *testing.T) {
	r := reader(t)
	var notice syncBuffer
	r.Notice, r.NoticeAfter = &notice, time.Nanosecond
	r.Stdin = lateStdin(t, "late", 100*time.Millisecond)
	if _, err := r.Prompt(context.Background(), "", nil); err != nil {
		t.Fatal(err)
	}
	if notice.String() != waitingNotice {
		t.Fatalf("notice = %q", notice.String())
	}
	// No writer: nothing is told, nothing breaks.
	r.Notice = nil
	r.Stdin = lateStdin(t, "late", 50*time.Millisecond)
	if got, err := r.Prompt(context.Background(), "", nil); err != nil || got != "late" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestStdinNotReadWithoutStdin(t *testing.T) {
	r := reader(t)
	if got, err := r.Prompt(context.Background(), "", []string{"a", "b"}); err != nil || got != "a b" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// expander expands "/x REST" to its text with REST, and fails as told.
type expander struct{ err error }

func (e expander) ExpandWithin(prompt string, limit int) (string, error) {
	if e.err != nil {
		return "", e.err
	}
	return "expanded: " + prompt, nil
}

func TestExpandErrors(t *testing.T) {
	r := reader(t)
	r.Expander = expander{err: errors.New("template fix: bad argument")}
	_, err := r.Message("/fix")
	usage(t, err, "template fix: bad argument")
	_, _, err = r.Run(context.Background(), []string{"/fix"})
	usage(t, err, "template fix: bad argument")
	r.Expander = expander{err: fmt.Errorf("the prompt is too long: %w", resources.ErrRefused)}
	_, _, err = r.Run(context.Background(), []string{"ok"})
	usage(t, err, "the prompt is too long: refused, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
}

func TestRunExpandsLaterMessagesAndFailsThere(t *testing.T) {
	r := reader(t)
	calls := 0
	r.Expander = expanderFunc(func(p string) (string, error) {
		calls++
		if calls == 2 {
			return "", errors.New("second fails")
		}
		return p, nil
	})
	_, then, err := r.Run(context.Background(), []string{"one", "two"})
	if then != nil {
		t.Fatalf("then = %+v", then)
	}
	usage(t, err, "second fails")
}

type expanderFunc func(string) (string, error)

func (f expanderFunc) ExpandWithin(p string, _ int) (string, error) { return f(p) }

func TestRunLaterMessagesAtTheBound(t *testing.T) {
	r := reader(t)
	r.Expander = expander{}
	first, then, err := r.Run(context.Background(), []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Text() != "expanded: a" || len(then) != 2 || then[0].Text() != "expanded: b" || then[1].Text() != "expanded: c" ||
		then[1].Timestamp != 42 {
		t.Fatalf("first %q then %+v", first.Text(), then)
	}
	r.Expander = nil
	r.Limit = 5
	if _, then, err = r.Run(context.Background(), []string{"a", "12345"}); err != nil || then[0].Text() != "12345" {
		t.Fatalf("a message at the bound: %v", err)
	}
}

func TestMessageBound(t *testing.T) {
	r := reader(t)
	r.Limit = 5
	if got, err := r.Message("12345"); err != nil || got != "12345" {
		t.Fatalf("got %q, %v", got, err)
	}
	_, err := r.Message("123456")
	usage(t, err, "the message is larger than 5 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
}

func TestRunClockDefaultsToNow(t *testing.T) {
	r := reader(t)
	r.Now = nil
	before := time.Now().UnixMilli()
	first, _, err := r.Run(context.Background(), []string{"hi"})
	if err != nil || first.Timestamp < before || first.Timestamp > time.Now().UnixMilli() {
		t.Fatalf("timestamp %d, err %v, want now", first.Timestamp, err)
	}
}
