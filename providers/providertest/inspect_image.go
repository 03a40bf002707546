package providertest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/internal/imagefile"
)

// A ViewImage is an image a request carries, as every wire sends it: an
// OpenAI image_url data URL, a Responses input_image, an Anthropic image
// block with a base64 source.
type ViewImage struct {
	// MediaType is the type the request declares.
	MediaType string
	// Sniffed is the type of the bytes themselves ("" when they are no
	// image): the real APIs refuse an image whose bytes are not its
	// declared type.
	Sniffed string
	// Bytes is the size of the decoded image data.
	Bytes int
	// Width and Height are read from the image's header (0 when it has
	// none that can be read).
	Width, Height int
}

// String is how the transcript shows it: `[image image/png 40x30 1234 bytes]`.
func (im ViewImage) String() string {
	return fmt.Sprintf("[image %s %dx%d %d bytes]", im.MediaType, im.Width, im.Height, im.Bytes)
}

// check reports an image whose bytes are not what it says it is.
func (im ViewImage) check() error {
	if im.Sniffed != im.MediaType {
		return fmt.Errorf("image declared %s holds %s", im.MediaType, fmt.Sprintf("%q", im.Sniffed))
	}
	return nil
}

// readImage makes a ViewImage of declared type and base64 data.
func readImage(mediaType, b64 string) ViewImage {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return ViewImage{MediaType: mediaType}
	}
	im := ViewImage{MediaType: mediaType, Bytes: len(data)}
	im.Sniffed, im.Width, im.Height, _ = imagefile.Size(data)
	return im
}

// dataURLImage reads a data:TYPE;base64,DATA URL; ok is false for any
// other URL.
func dataURLImage(url string) (ViewImage, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	meta, data, found := strings.Cut(rest, ",")
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !found || !isBase64 {
		return ViewImage{}, false
	}
	return readImage(mediaType, data), true
}

// imagePart is what an element of a content array holds when it is an
// image, in any wire's shape (its type is the element's).
type imagePart struct {
	// ImageURL is {"url": …} (Chat Completions) or a string (Responses).
	ImageURL json.RawMessage `json:"image_url"`
	Source   *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// image returns the part's image if it is one: kind is the part's type.
func (p imagePart) image(kind string) (ViewImage, bool) {
	switch kind {
	case "image":
		if p.Source != nil && p.Source.Type == "base64" {
			return readImage(p.Source.MediaType, p.Source.Data), true
		}
	case "image_url", "input_image":
		var url string
		if json.Unmarshal(p.ImageURL, &url) != nil {
			var obj struct {
				URL string `json:"url"`
			}
			json.Unmarshal(p.ImageURL, &obj)
			url = obj.URL
		}
		return dataURLImage(url)
	}
	return ViewImage{}, false
}

// contentImages returns the images of a content that is an array of parts
// (none for a string).
func contentImages(raw json.RawMessage) []ViewImage {
	var parts []struct {
		Type string `json:"type"`
		imagePart
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []ViewImage
	for _, p := range parts {
		if im, ok := p.image(p.Type); ok {
			out = append(out, im)
		}
	}
	return out
}

// imageBlocks is one image block per image.
func imageBlocks(images []ViewImage) []ViewBlock {
	var out []ViewBlock
	for _, im := range images {
		out = append(out, ViewBlock{Type: "image", Image: &im})
	}
	return out
}

// checkImages reports every image of the request that the API would
// refuse for its bytes.
func (v *RequestView) checkImages() []error {
	var problems []error
	for i, m := range v.Messages {
		for j, blk := range m.Blocks {
			images := blk.Images
			if blk.Image != nil {
				images = append(images, *blk.Image)
			}
			for _, im := range images {
				if err := im.check(); err != nil {
					problems = append(problems, fmt.Errorf("message %d (%s) block %d: %w", i, m.Role, j, err))
				}
			}
		}
	}
	return problems
}
