package session

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopi/internal/filekind"
)

// SessionDir returns the folder of cwd's sessions under root, named as pi
// names it: "--" + cwd without its leading slash, with / \ : replaced by
// "-", + "--".
func SessionDir(root, cwd string) string {
	safe := cwd
	if strings.HasPrefix(safe, "/") || strings.HasPrefix(safe, `\`) {
		safe = safe[1:]
	}
	safe = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(safe)
	return filepath.Join(root, "--"+safe+"--")
}

// SessionPath returns where a session started at t with id lives:
// <SessionDir>/<ISO time with : and . replaced by ->_<id>.jsonl.
func SessionPath(root, cwd string, t time.Time, id string) string {
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(FormatTime(t))
	return filepath.Join(SessionDir(root, cwd), ts+"_"+id+".jsonl")
}

// Info describes a session file found on disk.
type Info struct {
	Path    string
	Header  Header
	ModTime time.Time
	Size    int64
}

// List returns cwd's sessions under root, most recently modified first.
// Only headers are read, without locks; files whose header is invalid are
// skipped. A missing folder is an empty list.
func List(root, cwd string) ([]Info, error) {
	return listDir(SessionDir(root, cwd))
}

// listDir lists the session files directly in dir, newest first.
func listDir(dir string) ([]Info, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	var out []Info
	for _, de := range des {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		if info, err := statSession(filepath.Join(dir, de.Name())); err == nil {
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(b.Path, a.Path)
	})
	return out, nil
}

// Latest returns cwd's most recently modified session that is not a
// sub-agent's run (-c continues the user's conversation, not a child
// its task call left newer), or ErrNotFound.
func Latest(root, cwd string) (Info, error) {
	list, err := List(root, cwd)
	if err != nil {
		return Info{}, err
	}
	list = WithoutSubagents(list)
	if len(list) == 0 {
		return Info{}, fmt.Errorf("no session for %s under %s: %w", cwd, root, ErrNotFound)
	}
	return list[0], nil
}

// WithoutSubagents leaves out the sessions of sub-agents' runs (their
// header names the parent's task call), keeping the order: what gopi
// session list shows without --children.
func WithoutSubagents(list []Info) []Info {
	return slices.DeleteFunc(slices.Clone(list), func(i Info) bool { return i.Header.IsSubagent() })
}

// ReadHeader reads only line 1 of a session file.
func ReadHeader(path string) (Header, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if len(line) == 0 && err != nil {
		return Header{}, fmt.Errorf("session %s: %w: the file is empty", path, ErrInvalidHeader)
	}
	h, err := decodeHeader(line)
	if err != nil {
		return Header{}, fmt.Errorf("session %s:1: %w: %v", path, ErrInvalidHeader, err)
	}
	return h, nil
}

func statSession(path string) (Info, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Info{}, err
	}
	if !st.Mode().IsRegular() {
		return Info{}, &NotRegularError{Path: path, Kind: filekind.Of(st.Mode())}
	}
	h, err := ReadHeader(path)
	if err != nil {
		return Info{}, err
	}
	return Info{Path: path, Header: h, ModTime: st.ModTime(), Size: st.Size()}, nil
}

// Resolve finds a session by path or by a prefix of its id. A ref naming
// an existing file is that file; otherwise every session under root whose
// id starts with ref matches. No match is ErrNotFound, several are
// ErrAmbiguous with the candidates listed.
func Resolve(root, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("resolve session: empty id: %w", ErrNotFound)
	}
	if st, err := os.Stat(ref); err == nil && !st.IsDir() {
		return ref, nil
	}
	return resolveGlob(filepath.Join(root, "*", "*_"+escapeGlob(ref)+"*.jsonl"), root, ref)
}

func resolveGlob(pattern, root, ref string) (string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return "", fmt.Errorf("resolve session %s: %w", ref, err)
	}
	var found []string
	for _, m := range matches {
		base := strings.TrimSuffix(filepath.Base(m), ".jsonl")
		if i := strings.IndexByte(base, '_'); i >= 0 && strings.HasPrefix(base[i+1:], ref) { // the id follows the time, which has no '_'
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no session with id %s under %s: %w", ref, root, ErrNotFound)
	case 1:
		return found[0], nil
	}
	slices.Sort(found)
	return "", fmt.Errorf("session id %s matches %d sessions (%s); give more characters: %w",
		ref, len(found), strings.Join(found, ", "), ErrAmbiguous)
}

func escapeGlob(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}
