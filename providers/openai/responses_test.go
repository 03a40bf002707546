package openai_test

import (
	"regexp"
	"testing"

	"github.com/clawseed/clawseed/providers/internal/adaptertest"
	"github.com/clawseed/clawseed/providers/openai"
)

// respTextEvent is a Responses stream's text delta "x".
const respTextEvent = `event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"x","sequence_number":3}

`

// respWire describes the Responses adapter to the shared tests.
var respWire = adaptertest.Wire{
	New:       newAdapter(openai.WireResponses),
	Model:     "gpt-5",
	BasePath:  "/v1",
	Endpoint:  "/responses",
	KeyHeader: "Authorization",
	KeyPrefix: "Bearer ",
	Start: `event: response.created
data: {"type":"response.created","response":{"id":"resp_1","status":"in_progress"},"sequence_number":0}

`,
	Text: respTextEvent,
	End: `event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":5,"output_tokens":1}},"sequence_number":9}

`,
	Forbidden: []string{"github.com/openai/openai-go/v3", "github.com/openai/openai-go/v3/option",
		"github.com/openai/openai-go/v3/responses", "github.com/anthropics/anthropic-sdk-go"},
	GeneratedID: regexp.MustCompile(`call_[A-Z2-7]{16}`),
	Placeholder: "call_<generated>",
	GoldenDir:   "testdata/responses",
}

func TestResponsesTransport(t *testing.T) {
	t.Parallel()
	adaptertest.RunTransportTests(t, respWire)
}

// TestResponsesGolden runs every testdata/responses/*.txtar case, as
// TestGolden does the chat wire's.
func TestResponsesGolden(t *testing.T) {
	t.Parallel()
	adaptertest.RunGolden(t, respWire, *update)
}
