package input

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/resources"
	"gopi/pkg/tools"
)

// Files reads the @file arguments (paths without their @) as pi 1.6
// does: a text file is inlined as <file name="PATH">\nTEXT\n</file>\n, an
// image (png, jpeg, gif, webp, told by its first bytes) becomes an image
// block after the text, with <file name="PATH"></file>\n in it; an empty
// file is left out. PATH is absolute, relative paths and ~ being resolved
// from Cwd and Home. A missing file, one that is not a regular file, text
// over the bound and an image over the model's limits are usage errors:
// nothing is sent. So is a file of /proc or /sys, the kernel's views,
// which hold process environments (API keys among them); secrets (the
// keys kept from tool output) are scrubbed from text as from a tool's.
func (r *Reader) Files(paths []string) (string, []ai.Content, error) {
	var text strings.Builder
	var images []ai.Content
	for _, p := range paths {
		abs := r.resolve(p)
		if err := notKernelView(p, abs); err != nil {
			return "", nil, err
		}
		data, err := resources.ReadFile(nil, abs, int64(max(r.Limit, MaxImageBytes)))
		if err != nil {
			return "", nil, fileErr(p, abs, err)
		}
		if len(data) == 0 {
			continue
		}
		if mime := tools.ImageMime(data); mime != "" {
			if err := CheckImage("@"+p, mime, data); err != nil {
				return "", nil, err
			}
			images = append(images, ai.ImageContent(base64.StdEncoding.EncodeToString(data), mime))
			fmt.Fprintf(&text, "<file name=%q></file>\n", abs)
			continue
		}
		body := r.Secrets.Scrub(strings.ToValidUTF8(string(bytes.TrimPrefix(data, []byte("\uFEFF"))), "\uFFFD"))
		fmt.Fprintf(&text, "<file name=%q>\n%s\n</file>\n", abs, body)
		if text.Len() > r.Limit {
			return "", nil, r.overLimit(fmt.Sprintf("the @file arguments (with @%s) are larger than %d bytes", p, r.Limit))
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
				return assemble.Usagef("@%s: %s is in %s, the system's view of processes and devices, which holds their environments and keys: gopi does not send it; copy what you need into a file of your own", p, real, root)
			}
		}
	}
	return nil
}

// resolve makes an @file path absolute: ~ is Home, a relative path is
// under Cwd.
func (r *Reader) resolve(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if r.Home != "" {
			p = filepath.Join(r.Home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Cwd, p)
	}
	return filepath.Clean(p)
}

func fileErr(p, abs string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return assemble.Usagef("@%s: file not found (%s): check the path; @ arguments are read from the working directory", p, abs)
	case errors.Is(err, resources.ErrRefused):
		return assemble.Usagef("@%s: %s %v: give a regular file", p, abs, err)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return assemble.Usagef("@%s: cannot read %s: %v", p, abs, err)
}
