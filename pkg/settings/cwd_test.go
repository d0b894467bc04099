package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
)

func TestCwd(t *testing.T) {
	dir := t.TempDir()
	got, err := Cwd("", func() (string, error) { return dir, nil })
	if err != nil || got != dir {
		t.Fatalf("Cwd from getwd = %q, %v; want %q", got, err, dir)
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Cwd(file, nil)
	var ae *assemble.Error
	if !errors.As(err, &ae) || ae.Class != ai.ClassUsage || !strings.Contains(err.Error(), "is not a folder: give an existing folder") {
		t.Fatalf("Cwd on a file = %v; want a usage error", err)
	}
}

func TestOutputSchema(t *testing.T) {
	dir := t.TempDir()
	if sch, err := OutputSchema(dir, "", 0); sch != nil || err != nil {
		t.Fatalf("no schema = %v, %v", sch, err)
	}
	if _, err := OutputSchema(dir, "", -1); err == nil || !strings.Contains(err.Error(), "--output-retries -1") {
		t.Fatalf("negative retries = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type":"object"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if sch, err := OutputSchema(dir, "s.json", 1); sch == nil || err != nil {
		t.Fatalf("schema = %v, %v", sch, err)
	}
	if _, err := OutputSchema(dir, "missing.json", 0); err == nil || !strings.Contains(err.Error(), "--output-schema missing.json: ") {
		t.Fatalf("missing schema = %v", err)
	}
}
