package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gopi/internal/pijson"
	"gopi/pkg/assemble"
)

// settingKind is the JSON type a settings key takes.
type settingKind int

const (
	kindString    settingKind = iota // a JSON string
	kindStringNum                    // a string or a number (read as its decimal text)
	kindList                         // a list of strings, or one comma-separated string
	kindObject                       // a JSON object
)

// settingTypes are the types of the settings gopi reads, and what to say
// when a file gives another: a wrong type is a usage error when the file
// is read, before anything is sent or written, never a value ignored.
// Keys are matched without regard to case, as settings are read.
var settingTypes = map[string]struct {
	kind settingKind
	want string
}{
	"provider":           {kindString, `give a provider name as a string, e.g. "anthropic"`},
	"model":              {kindString, `give a model id as a string, or "provider/id"`},
	"baseUrl":            {kindString, `give the API address as a string`},
	"thinking":           {kindString, `give a string: "off", "minimal", "low", "medium", "high" or "xhigh"`},
	"systemPrompt":       {kindString, `give the prompt text, or the path of a file holding it, as a string`},
	"appendSystemPrompt": {kindString, `give the text, or the path of a file holding it, as a string`},
	"fsync":              {kindString, `give a string: "always" or "never"`},
	"timeout":            {kindStringNum, `give a duration as a string, such as "90s" or "10m"`},
	"maxSteps":           {kindStringNum, `give a whole number above 0`},
	"maxTokens":          {kindStringNum, `give a whole number, 0 for the model's limit`},
	"maxPromptBytes":     {kindStringNum, `give a whole number of bytes above 0, e.g. 10485760`},
	"maxBudgetTokens":    {kindStringNum, `give a whole number of tokens above 0, e.g. 200000`},
	"maxBudgetUsd":       {kindStringNum, `give US dollars above 0, e.g. 0.50`},
	"tools":              {kindList, `give a list of tool names or a comma-separated string, e.g. ["read","bash"] or "read,bash"`},
	"providers":          {kindObject, `give an object of named providers, e.g. {"local": {"api": "openai", ...}}`},
	"retry":              {kindObject, `give an object, e.g. {"maxAttempts": 3}`},
	"quirks":             {kindObject, `give an object, e.g. {"systemRole": "developer"}`},
	"secrets":            {kindList, `give a list of environment variable names, e.g. ["GITHUB_TOKEN"]`},
	"mcp":                {kindObject, `give an object, e.g. {"startTimeout": 30, "timeout": 60}`},
	"compaction":         {kindObject, `give an object, e.g. {"enabled": false} or {"reserveTokens": 16384, "keepRecentTokens": 20000}`},
	"sandbox":            {kindObject, `give an object, e.g. {"mode": "workspace-write", "network": false, "allowGit": false}`},
	"permissions":        {kindObject, `give an object, e.g. {"allow": ["Bash(git *)"], "deny": ["Read(/etc/**)"]}`},
	"subagents":          {kindObject, `give an object, e.g. {"maxConcurrency": 4, "maxDepth": 1}`},
	"telemetry":          {kindObject, `give an object, e.g. {"endpoint": "http://localhost:4318", "protocol": "http/json"}`},
}

// checkTypes rejects a value of the wrong JSON type in one settings file.
// Null is accepted: it clears the value a lower-precedence file set.
func checkTypes(path string, values map[string]any) error {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same key is reported first every time
	for _, k := range keys {
		for name, t := range settingTypes {
			if !strings.EqualFold(k, name) {
				continue
			}
			if val := values[k]; !t.kind.accepts(val) {
				return assemble.Usagef("%q in %s is %s: %s", k, path, describeValue(val), t.want)
			}
		}
	}
	return nil
}

func (k settingKind) accepts(val any) bool {
	switch t := val.(type) {
	case string:
		return k != kindObject
	case float64:
		return k == kindStringNum
	case []any:
		if k != kindList {
			return false
		}
		for _, x := range t {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	case map[string]any:
		return k == kindObject
	case nil:
		return true // clears what a lower-precedence file set
	}
	return false // booleans
}

// describeValue names a settings value's JSON type and shows it, shortened.
func describeValue(val any) string {
	b, _ := pijson.Marshal(val)
	shown := string(b)
	if r := []rune(shown); len(r) > 40 {
		shown = string(r[:37]) + "…"
	}
	switch val.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean (" + shown + ")"
	case float64:
		return "a number (" + shown + ")"
	case string:
		return "a string (" + shown + ")"
	case []any:
		return "a list (" + shown + ")"
	}
	return "an object (" + shown + ")"
}

// JSONProblem says what is wrong with a JSON document in the user's
// words, with the line and column of a syntax error in data.
func JSONProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(data, syn.Offset)
		what := strings.TrimPrefix(syn.Error(), "invalid character ")
		switch {
		case strings.Contains(what, "looking for beginning of object key string"):
			what = "a key must be a quoted string (\"key\": value) and no comma may end an object"
		case strings.Contains(what, "after object key:value pair"), strings.Contains(what, "after array element"):
			what = "a comma or closing bracket is missing before this point"
		case strings.HasPrefix(syn.Error(), "unexpected end"):
			what = "the file ends before the JSON does (a closing bracket missing?)"
		default:
			what = "unexpected " + strings.TrimPrefix(what, "unexpected ")
		}
		return fmt.Sprintf("not valid JSON at line %d, column %d: %s", line, col, what)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := jsonPath(typ.Field)
		if field == "" {
			return fmt.Sprintf("a value is %s: give %s", jsonKind(typ.Value), goKindWords(typ.Type))
		}
		return fmt.Sprintf("%q is %s: give %s", field, jsonKind(typ.Value), goKindWords(typ.Type))
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "unknown field " + f
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonPath is an UnmarshalTypeError's field path without the names of
// Go types it passed through (they begin with a capital; settings keys,
// as gopi reads them, do not).
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p != "" && !(p[0] >= 'A' && p[0] <= 'Z') {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

// lineCol is the line and column (from 1) of byte offset off in data;
// json.SyntaxError's Offset is just past the byte refused.
func lineCol(data []byte, off int64) (int, int) {
	off = max(0, min(off-1, int64(len(data))))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len([]rune(string(before[bytes.LastIndexByte(before, '\n')+1:]))) + 1
	return line, col
}

func jsonKind(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number", "number int", "number float":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	if strings.HasPrefix(v, "number") {
		return "a number (" + strings.TrimPrefix(v, "number ") + ")"
	}
	return v
}

func goKindWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}
