package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

func pngOf(t *testing.T, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: byte(x), G: byte(y), B: 7, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// file_read of an image returns the image, recognised by its content:
// a PNG named .txt is an image, text named .png is text.
func TestFileReadImage(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "shot.txt", pngOf(t, 40, 30))
	e.write(t, "big.png", pngOf(t, 3136, 100))
	e.write(t, "fake.png", "just text\n")
	e.write(t, "broken.png", "\x89PNG\r\n\x1a\n\x00\x00")
	tool := newFileRead(e.sb, 30000)
	tests := []struct {
		path      string
		wantImage string // the image's placeholder; "" for none
		wantText  string
		wantError bool
	}{
		{"shot.txt", "[image shot.txt: image/png, 40x30]", "Image shot.txt: image/png, 40x30, ", false},
		{"big.png", "[image big.png: image/png, 1568x50]", "(downscaled from 3136x100)", false},
		{"fake.png", "", "1\tjust text", false},
		{"broken.png", "", "Cannot read the image broken.png: reading the image/png header", true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := call(t, tool, map[string]any{"path": tt.path})
			got := ""
			if res.Image != nil {
				got = res.Image.Placeholder()
			}
			if got != tt.wantImage || res.IsError != tt.wantError || !strings.Contains(res.Content, tt.wantText) {
				t.Errorf("file_read %s = %q (image %q, error %v), want %q containing %q (error %v)",
					tt.path, res.Content, got, res.IsError, tt.wantImage, tt.wantText, tt.wantError)
			}
		})
	}
}
