package config

import "strings"

// Where a session learns whether its model takes images: the model entry's
// `vision = true|false` when set, else this table of the families whose
// vendors document image input, by model-name prefix (longest match wins,
// case-insensitive, after the last "/" so that routed names such as
// "anthropic/claude-sonnet-4" match). A model missing from the table has
// no vision: an image sent to a text-only model fails the whole request on
// most servers, while a clear refusal names the key that turns it on.
func visionModels() []struct {
	prefix string
	vision bool
} {
	return []struct {
		prefix string
		vision bool
	}{
		{"claude-", true},
		{"claude-2", false},
		{"claude-instant", false},
		{"gemini-", true},
		{"gpt-4-turbo", true},
		{"gpt-4.1", true},
		{"gpt-4o", true},
		{"gpt-5", true},
		{"grok-2-vision", true},
		{"grok-4", true},
		{"llama-3.2-11b-vision", true},
		{"llama-3.2-90b-vision", true},
		{"llama-4", true},
		{"llava", true},
		{"mistral-medium", true},
		{"mistral-small", true},
		{"o1", true},
		{"o1-mini", false},
		{"o3", true},
		{"o3-mini", false},
		{"o4-mini", true},
		{"pixtral", true},
		{"qwen2.5-vl", true},
	}
}

// ModelVision reports whether model is known to accept images.
func ModelVision(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, vision := -1, false
	for _, k := range visionModels() {
		if strings.HasPrefix(m, k.prefix) && len(k.prefix) > best {
			best, vision = len(k.prefix), k.vision
		}
	}
	return vision
}

// VisionFor is the vision of the model id model used through the
// [providers.models] entry name (/model ID switches the id only): the
// entry's `vision` when set, else [ModelVision] of the id.
func (c *Config) VisionFor(name, model string) bool {
	if e, ok := c.Providers.Models[name]; ok && e.Vision != nil {
		return *e.Vision
	}
	return ModelVision(model)
}
