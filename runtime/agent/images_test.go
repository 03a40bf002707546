package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

var testImage = providers.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake"), Name: "shot.png", Width: 750, Height: 100}

// imageTool returns testImage with its text.
func imageTool() *fakeTool {
	return &fakeTool{name: "file_read", class: permissions.ClassRead, run: func(context.Context, json.RawMessage) providers.ToolResult {
		return providers.ToolResult{Content: "shot.png: image/png, 750x100.", Image: &testImage}
	}}
}

func withVision(vision bool, tools ...Tool) func(*Options) {
	return func(o *Options) {
		o.Vision = vision
		if len(tools) > 0 {
			o.Tools = tools
		}
	}
}

func TestTurnWithImages(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "a chart"}}, withVision(true))
	if _, err := env.agent.TurnWith(t.Context(), "what is this?", []providers.Image{testImage}); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	got := reqs[0].Messages[0].Attached()
	if diff := cmp.Diff([]providers.Image{testImage}, got); diff != "" {
		t.Errorf("images sent (-want +got):\n%s", diff)
	}
}

func TestTurnWithImagesNoVision(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "never"}}, withVision(false))
	res, err := env.agent.TurnWith(t.Context(), "what is this?", []providers.Image{testImage})
	if !errors.Is(err, ErrNoVision) || !strings.Contains(err.Error(), "test-model does not accept images: set vision = true") {
		t.Fatalf("err = %v, want ErrNoVision naming the model and the key", err)
	}
	if res.Status != StatusError {
		t.Errorf("status %q", res.Status)
	}
	if n := len(env.model.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if h := env.agent.History(); len(h) != 0 {
		t.Errorf("history %v, want nothing recorded", h)
	}
	if evs := env.eventsOf(EventError); len(evs) != 1 {
		t.Errorf("error events %v, want one", evs)
	}
}

func TestToolImages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		vision     bool
		wantImages int
		wantError  string
	}{
		{"vision: the result carries the image", true, 1, ""},
		{"no vision: an error result says why", false, 0, "file_read returned an image ([image shot.png: image/png, 750x100]), but the model test-model does not accept images"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"shot.png"}`}}},
				{Text: "done"},
			}, withVision(tt.vision, imageTool()))
			if _, err := env.agent.Turn(t.Context(), "look"); err != nil {
				t.Fatal(err)
			}
			rs := lastResults(env.model.Requests()[1])
			if len(rs) != 1 || len(rs[0].Images()) != tt.wantImages {
				t.Fatalf("results %+v", rs)
			}
			if tt.wantError != "" && (!rs[0].IsError || !strings.Contains(rs[0].Content, tt.wantError)) {
				t.Errorf("result %q, want an error containing %q", rs[0].Content, tt.wantError)
			}
		})
	}
}

// A switch to a model without vision sends the images already in the
// history as placeholders; the history keeps them for a switch back.
func TestHistoryImagesAfterSwitch(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "a chart"}, {Text: "ok"}}, withVision(true))
	if _, err := env.agent.TurnWith(t.Context(), "what is this?", []providers.Image{testImage}); err != nil {
		t.Fatal(err)
	}
	env.agent.SwitchModel(ModelChoice{Model: env.model, Name: "text-only"})
	if _, err := env.agent.Turn(t.Context(), "and now?"); err != nil {
		t.Fatal(err)
	}
	first := env.model.Requests()[1].Messages[0]
	if len(first.Images()) != 0 || !strings.Contains(first.Text(), "[image shot.png: image/png, 750x100]") {
		t.Errorf("sent %+v, want the placeholder instead of the image", first)
	}
	if len(env.agent.History()[0].Images()) != 1 {
		t.Error("the history lost the image")
	}
}

func TestImagesCountTowardTheEstimate(t *testing.T) {
	t.Parallel()
	plain := providers.UserText("hi")
	with := userMessage("hi", []providers.Image{testImage})
	if got, want := messageTokens(with)-messageTokens(plain), 100; got != want {
		t.Errorf("a 750x100 image adds %d tokens, want %d (w*h/750)", got, want)
	}
}

// Compaction keeps no image before the turn in progress: the summary's
// transcript names it, the kept messages hold its placeholder.
func TestDropOldImages(t *testing.T) {
	t.Parallel()
	result := providers.ToolResult{CallID: "c1", Name: "file_read", Content: "ok", Image: &testImage}
	msgs := []providers.Message{
		userMessage("old", []providers.Image{testImage}),
		{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c1", Name: "file_read"}}}},
		{Role: providers.RoleUser, Parts: []providers.Part{resultPart(result)}},
		userMessage("current", []providers.Image{testImage}),
	}
	transcript := renderTranscript(msgs[:3])
	for _, want := range []string{"[user attached]\n[image shot.png: image/png, 750x100]", "[file_read result]\nok\n\n[image shot.png"} {
		if !strings.Contains(transcript, want) {
			t.Errorf("transcript lacks %q:\n%s", want, transcript)
		}
	}
	dropOldImages(msgs)
	for i, m := range msgs[:3] {
		if len(m.Images()) != 0 {
			t.Errorf("message %d keeps its image", i)
		}
	}
	if msgs[0].Parts[1].Text != "\n"+testImage.Placeholder() || !strings.HasSuffix(msgs[2].ToolResults()[0].Content, "ok\n"+testImage.Placeholder()) {
		t.Errorf("placeholders missing: %+v", msgs[:3])
	}
	if len(msgs[3].Images()) != 1 {
		t.Error("the turn in progress lost its image")
	}
}

// A compaction keeps no image before the last turn: the kept messages
// hold placeholders (and so does what is recorded); the last turn keeps
// its image.
func TestCompactionKeepsNoOldImages(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	env := newEnv(t, []providertest.Response{{When: "Summarise the conversation", Text: "S"}}, func(o *Options) {
		o.Vision = true
		o.KeepRecentTokens = 150
		o.Recorder = rec
	})
	env.agent.SetHistory([]providers.Message{
		providers.UserText("fix the parser"), providers.AssistantText("done"),
		userMessage("what is this?", []providers.Image{testImage}), providers.AssistantText("a chart"),
		userMessage("and this?", []providers.Image{testImage}), providers.AssistantText("the same"),
	})
	info, err := env.agent.Compact(t.Context(), "")
	if err != nil || info.Replaced == 0 {
		t.Fatalf("Compact = %+v, %v", info, err)
	}
	h := env.agent.History()
	last := len(h) - 2
	if h[last].Text() != "and this?" || len(h[last].Images()) != 1 {
		t.Fatalf("the last turn lost its image: %+v", h)
	}
	placeholders := 0
	for i, m := range h[:last] {
		if len(m.Images()) != 0 {
			t.Errorf("message %d keeps its image after the compaction", i)
		}
		if strings.Contains(m.Text(), testImage.Placeholder()) {
			placeholders++
		}
	}
	if placeholders != 1 {
		t.Errorf("%d placeholders before the last turn, want 1: %+v", placeholders, h)
	}
	if n := len(rec.compactions); n != 1 || len(rec.compactions[0].Messages[1].Images()) != 0 {
		t.Errorf("recorded compaction keeps the old image: %+v", rec.compactions)
	}
}
