package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMkimage writes an image for @file tests: mkimage FILE png|jpeg|gif W H
// [noise] (noise: random pixels, which do not compress).
func cmdMkimage(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "mkimage")
	if len(args) < 4 || len(args) > 5 {
		ts.Fatalf("usage: mkimage FILE png|jpeg|gif W H [noise]")
	}
	w, err := strconv.Atoi(args[2])
	ts.Check(err)
	h, err := strconv.Atoi(args[3])
	ts.Check(err)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			c := color.RGBA{uint8(x), uint8(y), 128, 255}
			if len(args) == 5 {
				c = color.RGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	switch args[1] {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	default:
		ts.Fatalf("mkimage: unknown format %s", args[1])
	}
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}
