package cmd

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig of @file images
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/resources"
	"gopi/pkg/settings"
	"gopi/pkg/tools"
)

// Limits of an @file image, as pi 1.6 keeps images under them: 4.5 MiB
// of base64 (Anthropic takes 5 MB), so 3.375 MiB of image; and a side of
// at most 8000 pixels, the most Anthropic accepts. pi shrinks a bigger
// image; gopi, without an image library, refuses it and says so.
const (
	maxImageBase64 = 9 << 19 // 4.5 MiB
	maxImageBytes  = maxImageBase64 / 4 * 3
	maxImageSide   = 8000
)

// splitArgs sorts run's arguments as pi does: an argument starting with
// @ names a file for the first prompt, every other one is a message.
func splitArgs(args []string) (files, messages []string) {
	for _, a := range args {
		if strings.HasPrefix(a, "@") && len(a) > 1 {
			files = append(files, a[1:])
		} else {
			messages = append(messages, a)
		}
	}
	return files, messages
}

// readFileArgs reads the @file arguments as pi 1.6 does: a text file is
// inlined as <file name="PATH">\nTEXT\n</file>\n, an image (png, jpeg,
// gif, webp, told by its first bytes) becomes an image block after the
// text, with <file name="PATH"></file>\n in it; an empty file is left
// out. PATH is absolute, relative paths and ~ being resolved from cwd and
// the home folder. A missing file, one that is not a regular file, text
// over the prompt limit and an image over the model's limits are usage
// errors: nothing is sent. So is a file of /proc or /sys, the kernel's
// views, which hold process environments (API keys among them); secrets
// (the keys kept from tool output) are scrubbed from text as from a
// tool's.
func readFileArgs(sys *System, cwd string, paths []string, limit int, c *settings.Settings, secrets *tools.Secrets) (string, []ai.Content, error) {
	var text strings.Builder
	var images []ai.Content
	for _, p := range paths {
		abs := resolveAtPath(sys, cwd, p)
		if err := notKernelView(p, abs); err != nil {
			return "", nil, err
		}
		data, err := resources.ReadFile(nil, abs, int64(max(limit, maxImageBytes)))
		if err != nil {
			return "", nil, atFileErr(p, abs, err)
		}
		if len(data) == 0 {
			continue
		}
		if mime := tools.ImageMime(data); mime != "" {
			if err := checkImage("@"+p, mime, data); err != nil {
				return "", nil, err
			}
			images = append(images, ai.ImageContent(base64.StdEncoding.EncodeToString(data), mime))
			fmt.Fprintf(&text, "<file name=%q></file>\n", abs)
			continue
		}
		body := secrets.Scrub(strings.ToValidUTF8(string(bytes.TrimPrefix(data, []byte("\uFEFF"))), "\uFFFD"))
		fmt.Fprintf(&text, "<file name=%q>\n%s\n</file>\n", abs, body)
		if text.Len() > limit {
			return "", nil, promptOverLimit(fmt.Sprintf("the @file arguments (with @%s) are larger than %d bytes", p, limit), c)
		}
	}
	return text.String(), images, nil
}

// notKernelView refuses a path that is, or leads by its links to, a
// file of /proc or /sys.
func notKernelView(p, abs string) error {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs // a missing file is ReadFile's to report
	}
	for _, root := range []string{"/proc", "/sys"} {
		for _, path := range []string{abs, real} {
			if path == root || strings.HasPrefix(path, root+"/") {
				return usageErr("@%s: %s is in %s, the system's view of processes and devices, which holds their environments and keys: gopi does not send it; copy what you need into a file of your own", p, real, root)
			}
		}
	}
	return nil
}

func resolveAtPath(sys *System, cwd, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home := sys.getenv("HOME"); home != "" {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

func atFileErr(p, abs string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErr("@%s: file not found (%s): check the path; @ arguments are read from the working directory", p, abs)
	case errors.Is(err, resources.ErrRefused):
		return usageErr("@%s: %s %v: give a regular file", p, abs, err)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return usageErr("@%s: cannot read %s: %v", p, abs, err)
}

// checkImage refuses an image the model would refuse (what names it:
// @PATH, an rpc command's images[N]). Sizes of png, jpeg and gif are read
// from their headers; webp goes as it is (Go's standard library does not
// read it), bounded by its bytes.
func checkImage(what, mime string, data []byte) error {
	if len(data) > maxImageBytes {
		return usageErr("%s: the image is %d bytes, over the %d bytes (4.5 MiB as base64) a model takes: shrink it (e.g. to 2000x2000 pixels) and try again", what, len(data), maxImageBytes)
	}
	if mime == "image/webp" {
		return nil
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return usageErr("%s starts as %s but is not a readable image: %v", what, mime, err)
	}
	if cfg.Width > maxImageSide || cfg.Height > maxImageSide {
		return usageErr("%s: the image is %dx%d pixels, over the %d pixels a side a model takes: shrink it (e.g. to 2000x2000) and try again", what, cfg.Width, cfg.Height, maxImageSide)
	}
	return nil
}
