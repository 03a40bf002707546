package tools

import (
	"fmt"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/imagefile"
	"github.com/clawseed/clawseed/providers"
)

// LoadImage prepares the bytes of a file named name as an image for the
// model ([imagefile.Prepare]: recognised by content, downscaled past the
// limits) and returns it with a note of what is sent (type, size, bytes, any
// downscale). Every
// image clawseed sends goes through it: file_read's, chat's @file and
// run's --image. Data that is no image is an error matching
// [imagefile.ErrNotImage].
func LoadImage(data []byte, name string) (providers.Image, string, error) {
	p, err := imagefile.Prepare(data)
	if err != nil {
		return providers.Image{}, "", fmt.Errorf("%s: %w", name, err)
	}
	im := providers.Image{MediaType: p.MediaType, Data: p.Data, Name: name, Width: p.Width, Height: p.Height}
	note := fmt.Sprintf("%s, %dx%d, %d bytes", p.MediaType, p.Width, p.Height, len(p.Data))
	if p.Scaled {
		note += fmt.Sprintf(" (downscaled from %dx%d)", p.SourceWidth, p.SourceHeight)
	}
	return im, note, nil
}

// IsImageFile reports whether the regular file at real starts like an
// image (PNG, JPEG, GIF, WebP), reading its first bytes only.
func IsImageFile(real string) bool {
	head, err := confine.Head(real, 16) // a FIFO or a device is never opened
	return err == nil && imagefile.IsImage(head)
}

// readImage is file_read of an image: the image itself, for the model to
// see (the agent turns it into an error for a model without vision).
func readImage(real, shown string) providers.ToolResult {
	data, err := readChecked(real, imagefile.MaxInput)
	if err != nil {
		return errorResult("Cannot read %s: %s.", shown, confine.Why(err))
	}
	im, note, err := LoadImage(data, shown)
	if err != nil {
		return errorResult("Cannot read the image %s.", err)
	}
	return providers.ToolResult{Content: "Image " + shown + ": " + note + ".", Image: &im}
}
