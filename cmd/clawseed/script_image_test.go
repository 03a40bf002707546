package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMkImage writes an image file for the image scripts (issue 31):
// `mkimage FILE png|jpeg|gif WxH [noise]`. The pixels are a gradient, or
// seeded noise (which compresses badly: a large noisy PNG is past the
// byte cap), the same at every run.
func cmdMkImage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 || len(args) == 4 && args[3] != "noise" {
		ts.Fatalf("usage: mkimage FILE png|jpeg|gif WxH [noise]")
	}
	var w, h int
	if _, err := fmt.Sscanf(strings.Replace(args[2], "x", " ", 1), "%d %d", &w, &h); err != nil || w <= 0 || h <= 0 {
		ts.Fatalf("mkimage: bad size %q", args[2])
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: byte(x), G: byte(y), B: byte(x + y), A: 255}
			if len(args) == 4 {
				c = color.RGBA{R: byte(r.UintN(256)), G: byte(r.UintN(256)), B: byte(r.UintN(256)), A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	var err error
	switch args[1] {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	default:
		ts.Fatalf("mkimage: unknown format %q", args[1])
	}
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}
