package input

import (
	"bytes"
	"image"
	_ "image/gif" // image.DecodeConfig of @file images
	_ "image/jpeg"
	_ "image/png"

	"gopi/pkg/assemble"
)

// Limits of an @file image, as pi 1.6 keeps images under them: 4.5 MiB
// of base64 (Anthropic takes 5 MB), so 3.375 MiB of image; and a side of
// at most 8000 pixels, the most Anthropic accepts. pi shrinks a bigger
// image; gopi, without an image library, refuses it and says so.
const (
	MaxImageBase64 = 9 << 19 // 4.5 MiB
	MaxImageBytes  = MaxImageBase64 / 4 * 3
	MaxImageSide   = 8000
)

// CheckImage refuses an image the model would refuse (what names it:
// @PATH, an rpc command's images[N]). Sizes of png, jpeg and gif are read
// from their headers; webp goes as it is (Go's standard library does not
// read it), bounded by its bytes.
func CheckImage(what, mime string, data []byte) error {
	if len(data) > MaxImageBytes {
		return assemble.Usagef("%s: the image is %d bytes, over the %d bytes (4.5 MiB as base64) a model takes: shrink it (e.g. to 2000x2000 pixels) and try again", what, len(data), MaxImageBytes)
	}
	if mime == "image/webp" {
		return nil
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return assemble.Usagef("%s starts as %s but is not a readable image: %v", what, mime, err)
	}
	if cfg.Width > MaxImageSide || cfg.Height > MaxImageSide {
		return assemble.Usagef("%s: the image is %dx%d pixels, over the %d pixels a side a model takes: shrink it (e.g. to 2000x2000) and try again", what, cfg.Width, cfg.Height, MaxImageSide)
	}
	return nil
}
