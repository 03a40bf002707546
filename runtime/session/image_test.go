package session

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// An image the user attached and one a tool returned are saved with the
// message (bytes base64 in the JSON line) and come back on resume.
func TestImagesRoundTrip(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	img := providers.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\x01"), Name: "shot.png", Width: 2, Height: 1}
	msgs := []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartText, Text: "look"}, {Type: providers.PartImage, Image: &img}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c1", Name: "file_read", Args: `{}`}}}},
		{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c1", Content: "x", Image: &img}}}},
	}
	path := writeSession(t, s, "20261122-031937-a1b2c3", "/ws", msgs...)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"data":"iVBORw0KGgoAAQ=="`) {
		t.Errorf("image bytes not stored base64:\n%s", data)
	}
	got, err := s.Load("20261122-031937-a1b2c3")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) > 0 {
		t.Errorf("warnings %v", got.Warnings)
	}
	if diff := cmp.Diff(msgs, got.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestParseRefusesEmptyImage(t *testing.T) {
	t.Parallel()
	m := providers.Message{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartImage, Image: &providers.Image{MediaType: "image/png"}}}}
	if err := checkMessage(&m); err == nil {
		t.Error("an image part without bytes passed")
	}
}
