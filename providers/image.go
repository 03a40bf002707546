package providers

import "fmt"

// PartImage is an image the user attached (chat's @file.png, run's
// --image): [Part].Image holds it. Images a tool returns travel in
// [ToolResult].Image instead, beside the result they belong to.
const PartImage PartType = "image"

// An Image is one image in the conversation, already checked and sized for
// the wire (the caller prepares it: content sniffed as PNG, JPEG, GIF or
// WebP, downscaled past the size limit). Adapters send Data base64-encoded
// with MediaType; nothing else reaches the wire.
//
// In a session record the bytes are stored base64 by encoding/json: the
// caller caps them (a prepared image is at most a few hundred KiB), which
// keeps a transcript with a few screenshots readable by the loader.
type Image struct {
	// MediaType is image/png, image/jpeg, image/gif or image/webp.
	MediaType string `json:"media_type"`
	// Data is the encoded image.
	Data []byte `json:"data"`
	// Name is where it came from (the path as the user or the model
	// wrote it), for placeholders and the transcript; never sent as
	// content on its own.
	Name string `json:"name,omitempty"`
	// Width and Height are the image's size in pixels as sent.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// Placeholder is the text that stands for the image where it is not sent:
// after a compaction, in a summary's transcript, or to a model without
// vision.
func (im Image) Placeholder() string {
	name := im.Name
	if name == "" {
		name = "image"
	}
	return fmt.Sprintf("[image %s: %s, %dx%d]", name, im.MediaType, im.Width, im.Height)
}

// ImageTokens estimates what an image of w×h pixels costs in input
// tokens. It follows Anthropic's published rule (w·h/750, images are
// scaled to at most ~1.15 megapixels first), which lies between OpenAI's
// tile formula for high detail and its flat low-detail cost; an unknown
// size counts as the largest image sent.
func ImageTokens(w, h int) int {
	const maxPixels = 1568 * 1568 / 2 // about 1.2 MP, the size vendors scale to
	px := w * h
	if w <= 0 || h <= 0 || px > maxPixels {
		px = maxPixels
	}
	return max(px/750, 85)
}

// Images returns the message's images in order: image parts and those of
// its tool results.
func (m Message) Images() []Image {
	var out []Image
	for _, p := range m.Parts {
		switch {
		case p.Type == PartImage && p.Image != nil:
			out = append(out, *p.Image)
		case p.Type == PartToolResult && p.ToolResult != nil:
			out = append(out, p.ToolResult.Images()...)
		}
	}
	return out
}

// Attached returns the images of the message's image parts, in order (not
// those of its tool results).
func (m Message) Attached() []Image {
	var out []Image
	for _, p := range m.Parts {
		if p.Type == PartImage && p.Image != nil {
			out = append(out, *p.Image)
		}
	}
	return out
}
