package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/clawseed/clawseed/providers"
)

// Images in the conversation (issue 31). What a model without vision gets
// is decided here, in one place, for every way an image arrives:
//
//   - a turn with images ([Agent.TurnWith]: chat's @file.png, run --image)
//     is refused before anything is sent, with [ErrNoVision];
//   - a tool result with images (file_read of a picture) becomes an error
//     result saying so (runOne), so the model learns why;
//   - images already in the history (a /model switch to a model without
//     vision) are sent as text placeholders naming the file and its size.
//
// Compaction summarises images rather than keeping them: the summary's
// transcript shows each as its placeholder, and images before the turn in
// progress become placeholders in the kept messages too (the turn in
// progress keeps them: the model is still working on them).

// ErrNoVision is the error of a turn with images for a model without
// vision.
var ErrNoVision = errors.New("the model does not accept images")

type noVisionError struct{ model string }

func (e noVisionError) Error() string {
	return fmt.Sprintf("the model %s does not accept images: set vision = true in its [providers.models] entry if it does, or switch to one that does (/model)", cmp.Or(e.model, "in use"))
}

func (noVisionError) Is(target error) bool { return target == ErrNoVision }

// TurnWith is [Agent.Turn] with images attached to the user's message,
// after its text. A model without vision gets none: the turn fails with
// an error matching [ErrNoVision] before anything is sent or recorded.
func (a *Agent) TurnWith(ctx context.Context, text string, images []providers.Image) (TurnResult, error) {
	if len(images) > 0 && !a.opts.Vision {
		a.opts.Sink(Event{Type: EventTurnStart, Text: text})
		res := TurnResult{base: a.UsageByModel()}
		return a.endTurn(ctx, res, noVisionError{a.opts.ModelName})
	}
	return a.turn(ctx, text, images)
}

// Vision reports whether the model in use accepts images.
func (a *Agent) Vision() bool { return a.opts.Vision }

// SetVision changes whether the model in use accepts images (/model
// switched the model id of the same entry; [Agent.SwitchModel] sets it
// with the rest).
func (a *Agent) SetVision(vision bool) { a.opts.Vision = vision }

// userMessage is the user's message: its text, then its images.
func userMessage(text string, images []providers.Image) providers.Message {
	m := providers.UserText(text)
	for i := range images {
		m.Parts = append(m.Parts, providers.Part{Type: providers.PartImage, Image: &images[i]})
	}
	return m
}

// toolImages is what a tool's result becomes for the model in use: as it
// is with vision; else an error result naming the images, which are not
// sent.
func (a *Agent) toolImages(name string, r providers.ToolResult) providers.ToolResult {
	if r.Image == nil || a.opts.Vision {
		return r
	}
	shown := r.Image.Placeholder()
	return errorResult("%s returned an image (%s), but the model %s does not accept images (its [providers.models] entry has vision = false, or the model is not known to take images).",
		name, shown, cmp.Or(a.opts.ModelName, "in use"))
}

// hasImages reports whether m holds an image.
func hasImages(m providers.Message) bool {
	for _, p := range m.Parts {
		if p.Type == providers.PartImage || p.Type == providers.PartToolResult && p.ToolResult != nil && p.ToolResult.Image != nil {
			return true
		}
	}
	return false
}

// withoutImages returns m with each image replaced by its placeholder: an
// image part by a text part, a result's images by lines after its content.
func withoutImages(m providers.Message) providers.Message {
	if !hasImages(m) {
		return m
	}
	parts := make([]providers.Part, 0, len(m.Parts))
	for _, p := range m.Parts {
		switch {
		case p.Type == providers.PartImage && p.Image != nil:
			// On a line of its own: wires join a message's text parts.
			parts = append(parts, providers.Part{Type: providers.PartText, Text: "\n" + p.Image.Placeholder()})
		case p.Type == providers.PartImage:
		case p.Type == providers.PartToolResult && p.ToolResult != nil && p.ToolResult.Image != nil:
			r := *p.ToolResult
			r.Content += "\n" + r.Image.Placeholder()
			r.Image = nil
			parts = append(parts, providers.Part{Type: providers.PartToolResult, ToolResult: &r})
		default:
			parts = append(parts, p)
		}
	}
	return providers.Message{Role: m.Role, Parts: parts}
}

// requestHistory is the history as the model in use is sent it: images as
// placeholders when it has no vision (the history itself keeps them, for
// a switch back).
func (a *Agent) requestHistory() []providers.Message {
	if a.opts.Vision || !containsImages(a.history) {
		return a.history
	}
	out := make([]providers.Message, len(a.history))
	for i, m := range a.history {
		out[i] = withoutImages(m)
	}
	return out
}

func containsImages(msgs []providers.Message) bool {
	for _, m := range msgs {
		if hasImages(m) {
			return true
		}
	}
	return false
}

// dropOldImages replaces the images of msgs before the last turn start
// (the turn in progress) by their placeholders, in place.
func dropOldImages(msgs []providers.Message) {
	last := 0
	for i, m := range msgs {
		if isTurnStart(m) {
			last = i
		}
	}
	for i := range msgs[:last] {
		msgs[i] = withoutImages(msgs[i])
	}
}

// imageTokens is what m's images add to its estimate.
func imageTokens(m providers.Message) int {
	n := 0
	for _, im := range m.Images() {
		n += providers.ImageTokens(im.Width, im.Height)
	}
	return n
}
