package input

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/resources"
)

func reader(t *testing.T) *Reader {
	t.Helper()
	return &Reader{Cwd: t.TempDir(), Limit: 1 << 20, LimitOrigin: "--max-prompt-bytes",
		Now: func() time.Time { return time.UnixMilli(42) }}
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// usage asserts err is a usage error reading want.
func usage(t *testing.T, err error, want string) {
	t.Helper()
	var ae *assemble.Error
	if !errors.As(err, &ae) || ae.Class != ai.ClassUsage {
		t.Fatalf("err = %v (%T), want a usage error", err, err)
	}
	if err.Error() != want {
		t.Fatalf("err = %q\nwant  %q", err, want)
	}
}

func TestSplitArgs(t *testing.T) {
	files, msgs := SplitArgs([]string{"@a.go", "fix it", "@", "then this"})
	if strings.Join(files, ",") != "a.go" || strings.Join(msgs, ",") != "fix it,@,then this" {
		t.Fatalf("files %q messages %q", files, msgs)
	}
}

func TestRunInlinesTextFile(t *testing.T) {
	r := reader(t)
	abs := write(t, r.Cwd, "notes.txt", []byte("\uFEFFhello\n"))
	first, then, err := r.Run(context.Background(), []string{"@notes.txt", "read it", "and then"})
	if err != nil {
		t.Fatal(err)
	}
	want := "<file name=\"" + abs + "\">\nhello\n\n</file>\nread it"
	if got := first.Text(); got != want {
		t.Fatalf("first = %q\nwant %q", got, want)
	}
	if first.Timestamp != 42 || len(then) != 1 || then[0].Text() != "and then" {
		t.Fatalf("first %+v then %+v", first, then)
	}
}

func TestFilesAttachesImage(t *testing.T) {
	r := reader(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	abs := write(t, r.Cwd, "shot.png", buf.Bytes())
	words, files, images, err := r.Chat([]string{"look", "@shot.png", "here"})
	if err != nil {
		t.Fatal(err)
	}
	if words != "look here" || files != "<file name=\""+abs+"\"></file>\n" {
		t.Fatalf("words %q files %q", words, files)
	}
	if len(images) != 1 || images[0].Type != ai.TypeImage || images[0].MimeType != "image/png" {
		t.Fatalf("images = %+v", images)
	}
}

func TestCheckImageRefusesHugeSide(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, MaxImageSide+1, 1))); err != nil {
		t.Fatal(err)
	}
	usage(t, CheckImage("@big.png", "image/png", buf.Bytes()),
		"@big.png: the image is 8001x1 pixels, over the 8000 pixels a side a model takes: shrink it (e.g. to 2000x2000) and try again")
}

func TestMissingFile(t *testing.T) {
	r := reader(t)
	_, _, err := r.Run(context.Background(), []string{"@nope.txt", "hi"})
	usage(t, err, "@nope.txt: file not found ("+filepath.Join(r.Cwd, "nope.txt")+"): check the path; @ arguments are read from the working directory")
}

func TestKernelViewRefused(t *testing.T) {
	r := reader(t)
	_, _, err := r.Files([]string{"/proc/self/environ"})
	if err == nil || !strings.Contains(err.Error(), "is in /proc, the system's view of processes") {
		t.Fatalf("err = %v", err)
	}
}

func TestPromptTooLarge(t *testing.T) {
	r := reader(t)
	r.Limit = 10
	_, _, err := r.Run(context.Background(), []string{"eleven bytes"})
	usage(t, err, "the prompt given as arguments is larger than 10 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
	_, _, err = r.Run(context.Background(), []string{"short", "a later message"})
	usage(t, err, "a message given as an argument is larger than 10 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
	write(t, r.Cwd, "f", []byte("0123456789"))
	_, _, err = r.Files([]string{"f"})
	usage(t, err, "the @file arguments (with @f) are larger than 10 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
}

// endless is a stdin that never ends, counting what was read of it.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += len(p)
	return len(p), nil
}

func TestStdinBounded(t *testing.T) {
	r := reader(t)
	r.Limit = 1000
	in := &endless{}
	r.Stdin = in
	_, err := r.Prompt(context.Background(), "", []string{"hi"})
	usage(t, err, "the prompt on stdin is larger than 1000 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
	if in.n > 1001+512 { // io.ReadAll's first buffer is 512 bytes
		t.Fatalf("read %d bytes of stdin, want at most the limit and a buffer", in.n)
	}
}

func TestStdinFirstThenWords(t *testing.T) {
	r := reader(t)
	r.Stdin = strings.NewReader("  the log\n\n")
	got, err := r.Prompt(context.Background(), "", []string{"explain"})
	if err != nil || got != "the log\n\nexplain" {
		t.Fatalf("got %q, %v", got, err)
	}
	r.Stdin = strings.NewReader("alone\n")
	if got, err = r.Prompt(context.Background(), "", nil); err != nil || got != "alone" {
		t.Fatalf("got %q, %v", got, err)
	}
	r.Stdin = strings.NewReader("\n")
	_, err = r.Prompt(context.Background(), "", nil)
	usage(t, err, "empty prompt: give it as arguments (gopi run \"fix the tests\") or on stdin")
}

func TestStdinNoticeAndInterrupt(t *testing.T) {
	r := reader(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	var notice bytes.Buffer
	r.Stdin, r.Notice, r.NoticeAfter = pr, &notice, time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := r.Prompt(ctx, "", []string{"hi"})
	if !errors.Is(err, context.DeadlineExceeded) || err.Error() != "the prompt on stdin did not end before the deadline (--timeout)" {
		t.Fatalf("err = %v", err)
	}
	if notice.String() != "gopi: waiting for the prompt on stdin (end it with Ctrl-D, or pass --no-stdin)\n" {
		t.Fatalf("notice = %q", notice.String())
	}
}

func TestTemplateExpansion(t *testing.T) {
	r := reader(t)
	r.Expander = &resources.Catalog{Templates: []resources.Template{{Name: "fix", Content: "Fix $1 now: $@"}}}
	first, then, err := r.Run(context.Background(), []string{"/fix tests please", "/fix lint"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Text() != "Fix tests now: tests please" || then[0].Text() != "Fix lint now: lint" {
		t.Fatalf("first %q then %q", first.Text(), then[0].Text())
	}
	r.Limit = 30
	_, err = r.Message("/fix " + strings.Repeat("a", 20))
	usage(t, err, "the prompt expands to more than 30 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N")
}
