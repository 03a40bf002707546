package imagefile

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
)

// noisy returns a w×h image of random pixels: it compresses badly, so a
// large one is over MaxBytes as PNG.
func noisy(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.UintN(256))
	}
	return img
}

func flat(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: byte(x), G: byte(y), B: 90, A: 255})
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeGIF(t testing.TB, img image.Image) []byte {
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpLossless is a 1×1 lossless WebP (a red pixel).
var webpLossless = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"png", encodePNG(t, flat(2, 2)), PNG},
		{"jpeg", encodeJPEG(t, flat(2, 2)), JPEG},
		{"gif", encodeGIF(t, flat(2, 2)), GIF},
		{"webp", webpLossless, WebP},
		{"text named .png", []byte("hello"), ""},
		{"riff not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sniff(tt.data); got != tt.want {
				t.Errorf("Sniff = %q, want %q", got, tt.want)
			}
		})
	}
}

// small are the limits of the tests: a tenth of the real ones (scaling is
// slow under the race detector); TestPrepareDefaults checks the real ones.
var small = limits{edge: MaxEdge / 10, bytes: MaxBytes / 10}

func TestPrepare(t *testing.T) {
	tests := []struct {
		name       string
		data       []byte
		wantType   string
		wantW      int
		wantH      int
		wantScaled bool
	}{
		{"small png kept", encodePNG(t, flat(40, 30)), PNG, 40, 30, false},
		{"small jpeg kept", encodeJPEG(t, flat(40, 30)), JPEG, 40, 30, false},
		{"gif kept", encodeGIF(t, flat(10, 20)), GIF, 10, 20, false},
		{"webp kept", webpLossless, WebP, 1, 1, false},
		{"wide png scaled to the edge", encodePNG(t, flat(300, 100)), PNG, small.edge, small.edge / 3, true},
		{"tall jpeg scaled", encodeJPEG(t, flat(50, 200)), JPEG, 39, small.edge, true},
		{"noisy png over the byte cap: jpeg", encodePNG(t, noisy(156, 150)), JPEG, 156, 150, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := prepare(tt.data, small)
			if err != nil {
				t.Fatal(err)
			}
			if got.MediaType != tt.wantType || got.Width != tt.wantW || got.Height != tt.wantH || got.Scaled != tt.wantScaled {
				t.Errorf("Prepare = %s %dx%d scaled=%v, want %s %dx%d scaled=%v",
					got.MediaType, got.Width, got.Height, got.Scaled, tt.wantType, tt.wantW, tt.wantH, tt.wantScaled)
			}
			if len(got.Data) > small.bytes {
				t.Errorf("%d bytes, over MaxBytes", len(got.Data))
			}
			if Sniff(got.Data) != got.MediaType {
				t.Errorf("data sniffs as %q, not %q", Sniff(got.Data), got.MediaType)
			}
		})
	}
}

// A JPEG still past the byte cap is made smaller until it fits.
func TestPrepareShrinksUntilItFits(t *testing.T) {
	got, err := prepare(encodePNG(t, noisy(150, 100)), limits{edge: 150, bytes: 6 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if got.MediaType != JPEG || got.Width >= 150 || got.Height >= 100 || len(got.Data) > 6<<10 {
		t.Errorf("prepare = %s %dx%d, %d bytes", got.MediaType, got.Width, got.Height, len(got.Data))
	}
}

// TestPrepareDefaults: an image past MaxEdge comes back at MaxEdge.
func TestPrepareDefaults(t *testing.T) {
	got, err := Prepare(encodePNG(t, flat(MaxEdge+2, 10)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Width != MaxEdge || got.Height != 9 || got.SourceWidth != MaxEdge+2 || len(got.Data) > MaxBytes {
		t.Errorf("Prepare = %dx%d from %dx%d, %d bytes", got.Width, got.Height, got.SourceWidth, got.SourceHeight, len(got.Data))
	}
}

func TestPrepareRefuses(t *testing.T) {
	// A PNG header claiming 100000×100000 pixels: refused from the
	// header, before any pixel is decoded.
	huge := encodePNG(t, flat(1, 1))
	copy(huge[16:24], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	tests := []struct {
		name string
		data []byte
	}{
		{"text", []byte("not an image")},
		{"truncated png", encodePNG(t, flat(4, 4))[:20]},
		{"png cut after its header", encodePNG(t, flat(40, 40))[:60]},
		{"jpeg cut after its header", encodeJPEG(t, flat(40, 40))[:300]},
		{"pixel bomb", huge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if img, err := Prepare(tt.data); err == nil {
				t.Fatalf("Prepare = %s %dx%d, want an error", img.MediaType, img.Width, img.Height)
			}
		})
	}
}

// pngHeader is a PNG of only a valid IHDR chunk: width×height at depth
// bits per channel of colour type typ (6: RGBA, 0: grey).
func pngHeader(width, height uint32, depth, typ byte) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, width)
	ihdr = binary.BigEndian.AppendUint32(ihdr, height)
	ihdr = append(ihdr, depth, typ, 0, 0, 0)
	chunk := append([]byte("IHDR"), ihdr...)
	out := append([]byte("\x89PNG\r\n\x1a\n"), binary.BigEndian.AppendUint32(nil, uint32(len(ihdr)))...)
	out = append(out, chunk...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
}

// A 16-bit image within the pixel limit but over the decoded size is
// refused from its header; the same canvas at 8 bits is not refused for
// its size (it fails later, having no pixels).
func TestPrepareDecodedSize(t *testing.T) {
	_, err := Prepare(pngHeader(4000, 4000, 16, 6))
	if err == nil || !strings.Contains(err.Error(), "MiB decoded") {
		t.Errorf("16-bit 4000x4000: %v, want the decoded-size refusal", err)
	}
	_, err = Prepare(pngHeader(4000, 4000, 8, 6))
	if err == nil || strings.Contains(err.Error(), "MiB decoded") {
		t.Errorf("8-bit 4000x4000: %v, want a decoding error, not the size refusal", err)
	}
	_, err = Prepare(pngHeader(4000, 4000, 16, 0)) // 16-bit grey: 32 MB
	if err == nil || strings.Contains(err.Error(), "MiB decoded") {
		t.Errorf("16-bit grey 4000x4000: %v, want a decoding error, not the size refusal", err)
	}
}

// FuzzPrepare feeds arbitrary bytes to the one entry point of every image
// clawseed sends: it must not panic, and what it returns must be within
// the limits and sniff as what it says it is.
func FuzzPrepare(f *testing.F) {
	f.Add(encodePNG(f, flat(3, 2)))
	f.Add(encodeJPEG(f, flat(3, 2)))
	f.Add(encodeGIF(f, flat(3, 2)))
	f.Add(webpLossless)
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "))
	f.Add([]byte("GIF89a"))
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Prepare(data)
		if err != nil {
			return
		}
		if len(img.Data) > MaxBytes || max(img.Width, img.Height) > MaxEdge && img.Scaled {
			t.Fatalf("over the limits: %d bytes, %dx%d", len(img.Data), img.Width, img.Height)
		}
		if Sniff(img.Data) != img.MediaType {
			t.Fatalf("returned data sniffs as %q, not %q", Sniff(img.Data), img.MediaType)
		}
	})
}
