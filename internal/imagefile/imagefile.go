// Package imagefile turns the bytes of a file someone wants to show the
// model into an image a wire can carry: the format is recognised by its
// content (PNG, JPEG, GIF, WebP; never by the file's extension), the size
// is checked before anything is decoded, and an image past the limits is
// downscaled and re-encoded in pure Go (PNG, or JPEG when PNG would still
// be too large). Every image clawseed sends — chat's @file, run's --image,
// file_read — goes through [Prepare].
package imagefile

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// The limits. MaxEdge is the longest side vendors use without scaling
// themselves (Anthropic's 1568 px; OpenAI scales to 2048 then 768 on the
// short side), so a larger image costs upload and tokens for nothing.
// MaxBytes caps an encoded image as sent and as stored in the session
// record (base64 there). MaxInput caps the file read, MaxPixels the image
// decoded (a small file may claim a huge canvas: the header is read first
// and such an image is refused before it is decoded).
const (
	MaxEdge   = 1568
	MaxBytes  = 512 << 10
	MaxInput  = 20 << 20
	MaxPixels = 24_000_000
	// MaxDecoded caps the memory of the decoded pixels at the depth the
	// decoder keeps them: MaxPixels of 8-bit RGBA, half as many of a
	// 16-bit image (8 bytes a pixel), so that a small 16-bit PNG cannot
	// take 200 MB to decode, several times over when reads run in
	// parallel.
	MaxDecoded = 96 << 20
)

// The media types Prepare recognises.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	GIF  = "image/gif"
	WebP = "image/webp"
)

// ErrNotImage is returned for data that is none of the four formats.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// An Image is a prepared image.
type Image struct {
	// MediaType is one of PNG, JPEG, GIF, WebP.
	MediaType string
	// Data is the encoded image, at most MaxBytes.
	Data []byte
	// Width and Height are the size of Data in pixels.
	Width, Height int
	// Scaled reports that the image was downscaled or re-encoded;
	// SourceWidth and SourceHeight are then the original's size.
	Scaled                    bool
	SourceWidth, SourceHeight int
}

// Sniff returns the media type of data by its leading bytes, or "".
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return JPEG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return WebP
	}
	return ""
}

// IsImage reports whether data starts like one of the four formats.
func IsImage(data []byte) bool { return Sniff(data) != "" }

// Prepare checks data and returns it ready to send: as it is when it fits
// MaxEdge and MaxBytes, else downscaled to fit and re-encoded.
func Prepare(data []byte) (Image, error) {
	return prepare(data, limits{edge: MaxEdge, bytes: MaxBytes})
}

// limits are Prepare's output limits (the tests use small ones: scaling
// large images is slow under the race detector).
type limits struct{ edge, bytes int }

func prepare(data []byte, lim limits) (Image, error) {
	kind := Sniff(data)
	if kind == "" {
		return Image{}, ErrNotImage
	}
	if len(data) > MaxInput {
		return Image{}, fmt.Errorf("image is %d bytes; the limit is %d", len(data), MaxInput)
	}
	cfg, err := decodeConfig(kind, data)
	if err != nil {
		return Image{}, fmt.Errorf("reading the %s header: %w", kind, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Image{}, fmt.Errorf("%s has no pixels (%dx%d)", kind, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return Image{}, fmt.Errorf("image is %dx%d pixels; the limit is %d pixels", cfg.Width, cfg.Height, MaxPixels)
	}
	if n := int64(cfg.Width) * int64(cfg.Height) * bytesPerPixel(cfg.ColorModel); n > MaxDecoded {
		return Image{}, fmt.Errorf("image is %dx%d pixels at %d bytes a pixel (%d MiB decoded); the limit is %d MiB", cfg.Width, cfg.Height, bytesPerPixel(cfg.ColorModel), n>>20, MaxDecoded>>20)
	}
	// Decoded whole even when it is sent as it is: an image the API
	// cannot read would fail this request and every later one of the
	// session, which keeps it in its history.
	src, err := decode(kind, data)
	if err != nil {
		return Image{}, fmt.Errorf("decoding the %s: %w", kind, err)
	}
	if len(data) <= lim.bytes && max(cfg.Width, cfg.Height) <= lim.edge {
		return Image{MediaType: kind, Data: data, Width: cfg.Width, Height: cfg.Height}, nil
	}
	img, err := shrink(src, kind, lim)
	img.SourceWidth, img.SourceHeight = cfg.Width, cfg.Height
	return img, err
}

// shrink scales src to fit lim.edge and encodes it under lim.bytes: PNG for
// a PNG or GIF source (screenshots, diagrams: sharp edges, maybe
// transparency), JPEG otherwise or when the PNG is still too large; each
// further try halves the pixels.
func shrink(src image.Image, kind string, lim limits) (Image, error) {
	b := src.Bounds()
	w, h := fit(b.Dx(), b.Dy(), lim.edge)
	for range 8 {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		if kind == PNG || kind == GIF {
			var buf bytes.Buffer
			if err := png.Encode(&buf, dst); err != nil {
				return Image{}, fmt.Errorf("encoding PNG: %w", err)
			}
			if buf.Len() <= lim.bytes {
				return Image{MediaType: PNG, Data: buf.Bytes(), Width: w, Height: h, Scaled: true}, nil
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85}); err != nil {
			return Image{}, fmt.Errorf("encoding JPEG: %w", err)
		}
		if buf.Len() <= lim.bytes {
			return Image{MediaType: JPEG, Data: buf.Bytes(), Width: w, Height: h, Scaled: true}, nil
		}
		w, h = max(w*7/10, 1), max(h*7/10, 1)
	}
	return Image{}, fmt.Errorf("image does not fit in %d bytes even at %dx%d", lim.bytes, w, h)
}

// fit returns w×h scaled down (aspect kept, at least 1 px) so that its
// longest side is at most edge.
func fit(w, h, edge int) (int, int) {
	if max(w, h) <= edge {
		return w, h
	}
	if w >= h {
		return edge, max(h*edge/w, 1)
	}
	return max(w*edge/h, 1), edge
}

func decodeConfig(kind string, data []byte) (image.Config, error) {
	r := bytes.NewReader(data)
	switch kind {
	case PNG:
		return png.DecodeConfig(r)
	case JPEG:
		return jpeg.DecodeConfig(r)
	case GIF:
		return gif.DecodeConfig(r)
	default:
		return webp.DecodeConfig(r)
	}
}

func decode(kind string, data []byte) (image.Image, error) {
	var r io.Reader = bytes.NewReader(data)
	switch kind {
	case PNG:
		return png.Decode(r)
	case JPEG:
		return jpeg.Decode(r)
	case GIF:
		// The first frame, as the vendors read an animation.
		return gif.Decode(r)
	default:
		return webp.Decode(r)
	}
}

// Size returns the media type (by content) and size in pixels of an
// image, reading only its header.
func Size(data []byte) (mediaType string, width, height int, err error) {
	kind := Sniff(data)
	if kind == "" {
		return "", 0, 0, ErrNotImage
	}
	cfg, err := decodeConfig(kind, data)
	if err != nil {
		return kind, 0, 0, err
	}
	return kind, cfg.Width, cfg.Height, nil
}

// bytesPerPixel is what the decoders keep of a pixel in model m: 16-bit
// models 8 (colour) or 2 (grey), 8-bit colour 4, grey and palettes 1;
// YCbCr (JPEG) at most 3.
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.Gray16Model:
		return 2
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.YCbCrModel, color.CMYKModel:
		return 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 4
}
