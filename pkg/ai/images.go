package ai

import "slices"

// The texts that stand in for images a model does not take, as pi 1.6
// words them.
const (
	ImageOmitted     = "(image omitted: model does not support images)"
	ToolImageOmitted = "(tool image omitted: model does not support images)"
)

// WithoutImages returns msgs as a model that takes no images is sent
// them, as pi 1.6 sends them: in user messages each run of consecutive
// image blocks becomes one ImageOmitted text block, in tool results one
// ToolImageOmitted; an image right after a block that already is that
// text adds nothing. Assistant and other messages are left as they are.
//
// Only what changes is copied: msgs and its messages are not modified,
// the messages without images are shared, and msgs itself is returned
// when it holds no image to replace.
func WithoutImages(msgs []Message) []Message {
	var out []Message
	for i := range msgs {
		placeholder := omittedText(msgs[i].Role)
		if placeholder == "" || !slices.ContainsFunc(msgs[i].Content, isImage) {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i].Content = replaceImages(msgs[i].Content, placeholder)
	}
	if out == nil {
		return msgs
	}
	return out
}

// omittedText is what stands in for an image in a message of role, or
// "" when its images are not replaced.
func omittedText(role string) string {
	switch role {
	case RoleUser:
		return ImageOmitted
	case RoleToolResult:
		return ToolImageOmitted
	}
	return ""
}

func isImage(c Content) bool { return c.Type == TypeImage }

// replaceImages returns a new slice of content with each run of images
// replaced by one placeholder text block.
func replaceImages(content []Content, placeholder string) []Content {
	out := make([]Content, 0, len(content))
	afterPlaceholder := false
	for _, c := range content {
		if c.Type == TypeImage {
			if !afterPlaceholder {
				out = append(out, TextContent(placeholder))
			}
			afterPlaceholder = true
			continue
		}
		out = append(out, c)
		afterPlaceholder = c.Type == TypeText && c.Text == placeholder
	}
	return out
}
