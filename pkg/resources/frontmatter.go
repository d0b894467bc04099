package resources

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// frontmatter is the YAML header of a skill or template file.
type frontmatter map[string]any

// splitFrontmatter separates a leading `---` YAML block from the body, as
// pi does: without a closing `---` line the whole text is the body. The
// body of a file with frontmatter is trimmed.
func splitFrontmatter(text string) (yamlText string, body string, ok bool) {
	text = normalizeNewlines(text)
	if !strings.HasPrefix(text, "---") {
		return "", text, false
	}
	end := strings.Index(text[3:], "\n---")
	if end < 0 {
		return "", text, false
	}
	end += 3
	start := min(4, end)
	return text[start:end], strings.TrimSpace(text[end+4:]), true
}

// parseFrontmatter returns the header fields and the body. Invalid YAML,
// or YAML that is not a mapping, is an error naming the problem.
func parseFrontmatter(text string) (frontmatter, string, error) {
	y, body, ok := splitFrontmatter(text)
	if !ok || strings.TrimSpace(y) == "" {
		return frontmatter{}, body, nil
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(y), &fm); err != nil {
		return nil, body, fmt.Errorf("invalid YAML frontmatter: %w", err)
	}
	if fm == nil {
		fm = frontmatter{}
	}
	return fm, body, nil
}

// str returns a string field; present with another type is an error.
func (fm frontmatter) str(key string) (string, error) {
	v, ok := fm[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("frontmatter field %q must be a string, not %T", key, v)
	}
	return s, nil
}

// flag returns a boolean field (false when absent or not a boolean).
func (fm frontmatter) flag(key string) bool {
	b, _ := fm[key].(bool)
	return b
}
