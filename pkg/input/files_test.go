package input

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFilesLeavesOutEmptyFileKeepsOneByte(t *testing.T) {
	r := reader(t)
	write(t, r.Cwd, "empty", nil)
	one := write(t, r.Cwd, "one", []byte("x"))
	text, images, err := r.Files([]string{"empty", "one"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<file name=\"" + one + "\">\nx\n</file>\n"; text != want || len(images) != 0 {
		t.Fatalf("text %q images %d, want %q and none", text, len(images), want)
	}
}

func TestFilesImageKeepsItsBytesAndOrder(t *testing.T) {
	r := reader(t)
	data := pngOf(t, 2, 2)
	img := write(t, r.Cwd, "a.png", data)
	txt := write(t, r.Cwd, "b.txt", []byte("words"))
	text, images, err := r.Files([]string{"a.png", "b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := "<file name=\"" + img + "\"></file>\n<file name=\"" + txt + "\">\nwords\n</file>\n"
	if text != want {
		t.Fatalf("text %q\nwant %q", text, want)
	}
	if len(images) != 1 || images[0].Data != base64.StdEncoding.EncodeToString(data) {
		t.Fatalf("images = %+v", images)
	}
}

func TestFilesRefusesUnreadableImage(t *testing.T) {
	r := reader(t)
	write(t, r.Cwd, "bad.png", []byte("\x89PNG\r\n\x1a\nnot really"))
	text, images, err := r.Files([]string{"bad.png"})
	if err == nil || text != "" || images != nil {
		t.Fatalf("text %q images %v err %v, want nothing and an error", text, images, err)
	}
	if !strings.HasPrefix(err.Error(), "@bad.png starts as image/png but is not a readable image: ") {
		t.Fatalf("err = %v", err)
	}
}

func TestFilesScrubsSecretsAndInvalidUTF8(t *testing.T) {
	r := reader(t)
	r.Secrets = tools.NewSecrets(tools.Secret{Name: "API_KEY", Value: "sk-verysecret123"})
	abs := write(t, r.Cwd, "env", []byte("key=sk-verysecret123 \xff end"))
	text, _, err := r.Files([]string{"env"})
	if err != nil {
		t.Fatal(err)
	}
	want := "<file name=\"" + abs + "\">\nkey=" + tools.Redaction("API_KEY") + " \uFFFD end\n</file>\n"
	if text != want {
		t.Fatalf("text %q\nwant %q", text, want)
	}
}

func TestFilesAtTheBoundIsKept(t *testing.T) {
	r := reader(t)
	abs := write(t, r.Cwd, "f", []byte("0123456789"))
	r.Limit = len("<file name=\"" + abs + "\">\n0123456789\n</file>\n")
	if _, _, err := r.Files([]string{"f"}); err != nil {
		t.Fatalf("a text exactly at the bound: %v", err)
	}
	r.Limit--
	if _, _, err := r.Files([]string{"f"}); err == nil {
		t.Fatal("a text one byte over the bound was kept")
	}
}

func TestFilesResolvesHomeAndCwd(t *testing.T) {
	r := reader(t)
	r.Home = t.TempDir()
	inHome := write(t, r.Home, "h.txt", []byte("home"))
	inCwd := write(t, r.Cwd, "c.txt", []byte("cwd"))
	text, _, err := r.Files([]string{"~/h.txt", "./sub/../c.txt", inCwd})
	if err != nil {
		t.Fatal(err)
	}
	want := "<file name=\"" + inHome + "\">\nhome\n</file>\n" +
		"<file name=\"" + inCwd + "\">\ncwd\n</file>\n" +
		"<file name=\"" + inCwd + "\">\ncwd\n</file>\n"
	if text != want {
		t.Fatalf("text %q\nwant %q", text, want)
	}
	// ~ alone is the home folder: not a regular file.
	_, _, err = r.Files([]string{"~"})
	usage(t, err, "@~: "+r.Home+" is a folder, not a regular file: give a regular file")
	// ~name is not the home folder, nor is ~ when no home is given.
	_, _, err = r.Files([]string{"~h.txt"})
	usage(t, err, "@~h.txt: file not found ("+filepath.Join(r.Cwd, "~h.txt")+"): check the path; @ arguments are read from the working directory")
	r.Home = ""
	_, _, err = r.Files([]string{"~/h.txt"})
	usage(t, err, "@~/h.txt: file not found ("+filepath.Join(r.Cwd, "~", "h.txt")+"): check the path; @ arguments are read from the working directory")
}

func TestFilesReadErrors(t *testing.T) {
	r := reader(t)
	abs := write(t, r.Cwd, "plain", []byte("x"))
	_, _, err := r.Files([]string{"plain/inside"})
	usage(t, err, "@plain/inside: cannot read "+abs+"/inside: not a directory")
	_, _, err = r.Files([]string{"."})
	usage(t, err, "@.: "+r.Cwd+" is a folder, not a regular file: give a regular file")
}

func TestKernelViewRefusedByPathAndByLink(t *testing.T) {
	r := reader(t)
	_, _, err := r.Files([]string{"/proc/no-such-entry"})
	usage(t, err, "@/proc/no-such-entry: /proc/no-such-entry is in /proc, the system's view of processes and devices, which holds their environments and keys: gopi does not send it; copy what you need into a file of your own")
	_, _, err = r.Files([]string{"/sys"})
	usage(t, err, "@/sys: /sys is in /sys, the system's view of processes and devices, which holds their environments and keys: gopi does not send it; copy what you need into a file of your own")
	if err := os.Symlink("/proc/self/environ", filepath.Join(r.Cwd, "env")); err != nil {
		t.Skip(err)
	}
	real, err := filepath.EvalSymlinks("/proc/self/environ")
	if err != nil {
		t.Skip(err)
	}
	_, _, err = r.Files([]string{"env"})
	usage(t, err, "@env: "+real+" is in /proc, the system's view of processes and devices, which holds their environments and keys: gopi does not send it; copy what you need into a file of your own")
}

func TestKernelViewIsOnlyThoseFolders(t *testing.T) {
	r := reader(t)
	_, _, err := r.Files([]string{"/procfs-not/x"})
	usage(t, err, "@/procfs-not/x: file not found (/procfs-not/x): check the path; @ arguments are read from the working directory")
}

func TestChatRefusesMissingFileAndNeedsNone(t *testing.T) {
	r := reader(t)
	_, _, _, err := r.Chat([]string{"hi", "@gone"})
	usage(t, err, "@gone: file not found ("+filepath.Join(r.Cwd, "gone")+"): check the path; @ arguments are read from the working directory")
	words, files, images, err := r.Chat([]string{"just", "words"})
	if err != nil || words != "just words" || files != "" || images != nil {
		t.Fatalf("words %q files %q images %v err %v", words, files, images, err)
	}
}

func TestRunAttachesImagesAfterText(t *testing.T) {
	r := reader(t)
	abs := write(t, r.Cwd, "s.png", pngOf(t, 1, 1))
	first, _, err := r.Run(context.Background(), []string{"@s.png", "what is it"})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Content) != 2 || first.Content[0].Type != ai.TypeText || first.Content[1].Type != ai.TypeImage {
		t.Fatalf("content = %+v", first.Content)
	}
	if first.Text() != "<file name=\""+abs+"\"></file>\nwhat is it" {
		t.Fatalf("text = %q", first.Text())
	}
}

func TestRunRefusesUnreadableFileBeforeStdin(t *testing.T) {
	r := reader(t)
	r.Stdin = &endless{}
	_, _, err := r.Run(context.Background(), []string{"@gone", "hi"})
	if err == nil || !strings.Contains(err.Error(), "file not found") {
		t.Fatalf("err = %v", err)
	}
	if r.Stdin.(*endless).n != 0 {
		t.Fatal("stdin was read although a file was refused")
	}
}

func TestImageLimitsAreWhatModelsTake(t *testing.T) {
	// 4.5 MiB of base64, the most pi sends.
	const base64Bound = 4718592 // 4.5 MiB
	if n := base64.StdEncoding.EncodedLen(MaxImageBytes); n != base64Bound || MaxImageBase64 != base64Bound {
		t.Fatalf("MaxImageBytes encodes to %d bytes of base64, want 4.5 MiB", n)
	}
	if base64.StdEncoding.EncodedLen(MaxImageBytes+1) <= base64Bound {
		t.Fatal("MaxImageBytes is not the most that fits 4.5 MiB of base64")
	}
	usage(t, CheckImage("images[0]", "image/webp", make([]byte, MaxImageBytes+1)),
		"images[0]: the image is 3538945 bytes, over the 3538944 bytes (4.5 MiB as base64) a model takes: shrink it (e.g. to 2000x2000 pixels) and try again")
	if err := CheckImage("images[0]", "image/webp", make([]byte, MaxImageBytes)); err != nil {
		t.Fatalf("an image at the bound: %v", err)
	}
}

func TestCheckImageSides(t *testing.T) {
	for _, c := range []struct {
		w, h int
		ok   bool
	}{{8000, 1, true}, {1, 8000, true}, {8001, 1, false}, {1, 8001, false}} {
		err := CheckImage("@x.png", "image/png", pngOf(t, c.w, c.h))
		if (err == nil) != c.ok {
			t.Errorf("%dx%d: err = %v", c.w, c.h, err)
		}
	}
}

func TestCheckImageWebpIsNotDecoded(t *testing.T) {
	if err := CheckImage("@x.webp", "image/webp", []byte("RIFF\x00\x00\x00\x00WEBPjunk")); err != nil {
		t.Fatalf("webp: %v", err)
	}
	err := CheckImage("@x.gif", "image/gif", []byte("GIF89ajunk"))
	if err == nil || !strings.HasPrefix(err.Error(), "@x.gif starts as image/gif but is not a readable image: ") {
		t.Fatalf("err = %v", err)
	}
}

func TestSplitArgsOneLetterFile(t *testing.T) {
	files, msgs := SplitArgs([]string{"@f", "@", "x"})
	if len(files) != 1 || files[0] != "f" || len(msgs) != 2 || msgs[0] != "@" || msgs[1] != "x" {
		t.Fatalf("files %q messages %q", files, msgs)
	}
}
