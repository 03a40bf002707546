package providertest

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file reads Responses request bodies into a RequestView, checks them
// as the API does, and makes and verifies the encrypted reasoning the
// Server sends on that wire.

// encryptedPrefix starts every encrypted_content the fake server makes.
const encryptedPrefix = "fakeenc-"

// A reasoningSeal is what an encrypted_content carries: the item it was
// made for. The real API's content is opaque; the fake server's can be
// read back, so a check can rebuild the item it sent.
type reasoningSeal struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Redacted bool   `json:"redacted,omitempty"`
}

// EncryptedReasoning returns the encrypted_content the Server gives the
// reasoning item id whose summary is text (redacted: no summary, text
// hidden in the content): deterministic, and bound to the item, so a check
// can tell whether a client echoed the item unchanged.
func EncryptedReasoning(id, text string, redacted bool) string {
	payload := base64.RawURLEncoding.EncodeToString(marshal(reasoningSeal{ID: id, Text: text, Redacted: redacted}))
	return encryptedPrefix + payload + "." + sealMAC(payload)
}

func sealMAC(payload string) string {
	sum := sha256.Sum256([]byte("providertest reasoning\x00" + payload))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// openSeal reads an encrypted_content the fake server made; false when it
// made none such (another server's, or an altered one).
func openSeal(enc string) (reasoningSeal, bool) {
	rest, ok := strings.CutPrefix(enc, encryptedPrefix)
	payload, mac, found := strings.Cut(rest, ".")
	if !ok || !found || sealMAC(payload) != mac {
		return reasoningSeal{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	var seal reasoningSeal
	if err != nil || json.Unmarshal(raw, &seal) != nil {
		return reasoningSeal{}, false
	}
	return seal, true
}

// rsInputItem is one item of a Responses request's input, read loosely:
// a message (type "message" or omitted, with a role), function_call,
// function_call_output, reasoning, or anything else by its type.
type rsInputItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	Summary          []rsSummaryText `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
}

type rsReadRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Tools        []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

// inputItems returns a request's input: an array of items, or a string
// that stands for one user message.
func inputItems(raw json.RawMessage) ([]rsInputItem, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		c, _ := json.Marshal(s)
		return []rsInputItem{{Type: "message", Role: "user", Content: c}}, nil
	}
	var items []rsInputItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("input is neither a string nor an array of items: %w", err)
	}
	for i := range items {
		if items[i].Type == "" && items[i].Role != "" {
			items[i].Type = "message"
		}
	}
	return items, nil
}

// readResponses reads a Responses request. The system prompt is the
// instructions followed by the text of the system and developer input
// messages, joined with a blank line; the other items make up the
// messages: user messages, function_call_output items as tool messages
// (as on the Chat Completions wire), and each run of reasoning items,
// assistant messages and function calls as one assistant message.
func readResponses(body []byte) (*RequestView, error) {
	var r rsReadRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("responses request: %w", err)
	}
	items, err := inputItems(r.Input)
	if err != nil {
		return nil, fmt.Errorf("responses request: %w", err)
	}
	v := &RequestView{Wire: WireResponses, Model: r.Model}
	for _, t := range r.Tools {
		v.Tools = append(v.Tools, cmp.Or(t.Name, t.Type))
	}
	if r.Instructions != "" {
		v.SystemBlocks = append(v.SystemBlocks, r.Instructions)
	}
	var turn *ViewMessage // the assistant message being gathered
	end := func() {
		if turn != nil {
			v.Messages = append(v.Messages, *turn)
			turn = nil
		}
	}
	gather := func(b ViewBlock) {
		if turn == nil {
			turn = &ViewMessage{Role: "assistant"}
		}
		turn.Blocks = append(turn.Blocks, b)
	}
	for _, it := range items {
		switch {
		case it.Type == "message" && (it.Role == "system" || it.Role == "developer"):
			v.SystemBlocks = append(v.SystemBlocks, contentText(it.Content))
		case it.Type == "message" && it.Role == "assistant":
			for _, b := range partBlocks(it.Content) {
				gather(b)
			}
		case it.Type == "message":
			end()
			blocks := partBlocks(it.Content)
			v.Messages = append(v.Messages, ViewMessage{Role: it.Role, Blocks: blocks, empty: len(blocks) == 0})
		case it.Type == "reasoning":
			gather(reasoningBlock(it))
		case it.Type == "function_call":
			gather(ViewBlock{Type: "tool_use", ID: it.CallID, Name: it.Name, Args: it.Arguments,
				InputObject: isObject([]byte(it.Arguments))})
		case it.Type == "function_call_output":
			end()
			v.Messages = append(v.Messages, ViewMessage{Role: "tool",
				Blocks: []ViewBlock{{Type: "tool_result", ID: it.CallID, Text: contentText(it.Output), Images: contentImages(it.Output)}}})
		default:
			end()
			v.Messages = append(v.Messages, ViewMessage{Role: cmp.Or(it.Role, "input"), Blocks: []ViewBlock{{Type: it.Type}}})
		}
	}
	end()
	v.HasSystem = len(v.SystemBlocks) > 0
	v.System = strings.Join(v.SystemBlocks, "\n\n")
	return v, nil
}

// partBlocks returns a message content, a string or an array of parts
// (input_text, output_text, input_image…), as one block per part.
func partBlocks(raw json.RawMessage) []ViewBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		return []ViewBlock{{Type: "text", Text: s}}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		imagePart
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []ViewBlock
	for _, p := range parts {
		if im, ok := p.image(p.Type); ok {
			out = append(out, ViewBlock{Type: "image", Image: &im})
			continue
		}
		switch p.Type {
		case "input_text", "output_text":
			out = append(out, ViewBlock{Type: "text", Text: p.Text})
		default:
			out = append(out, ViewBlock{Type: p.Type})
		}
	}
	return out
}

// reasoningBlock renders a reasoning item: a thinking block with its
// summary text and the encrypted content as signature, or a
// redacted_thinking block when it has no summary.
func reasoningBlock(it rsInputItem) ViewBlock {
	enc := ""
	if it.EncryptedContent != nil {
		enc = *it.EncryptedContent
	}
	if len(it.Summary) == 0 {
		return ViewBlock{Type: "redacted_thinking", ID: it.ID, Text: enc, Signature: enc}
	}
	var text []string
	for _, s := range it.Summary {
		text = append(text, s.Text)
	}
	return ViewBlock{Type: "thinking", ID: it.ID, Text: strings.Join(text, "\n\n"), Signature: enc}
}

// checkReasoningInput refuses, as the API does, a request whose input
// holds a reasoning item the server cannot use: one without
// encrypted_content (nothing is stored on the fake server; the real one
// finds nothing either when store is false), one whose content it did not
// make or that was altered, and one that is not the item the content was
// made for, byte for byte.
func checkReasoningInput(body []byte, stored bool) error {
	var r struct {
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil // reported as a body that is not JSON
	}
	items, err := inputItems(r.Input)
	if err != nil {
		return nil // not the fake server's concern: the checks report it
	}
	var problems []error
	for i, it := range items {
		if it.Type != "reasoning" {
			continue
		}
		if err := checkReasoningItem(it, stored); err != nil {
			problems = append(problems, fmt.Errorf("input[%d]: %w", i, err))
		}
	}
	return errors.Join(problems...)
}

// checkReasoningItem checks one echoed reasoning item against the item
// its encrypted content was made for.
func checkReasoningItem(it rsInputItem, stored bool) error {
	if it.EncryptedContent == nil || *it.EncryptedContent == "" {
		msg := fmt.Sprintf("item with id '%s' not found", it.ID)
		if !stored {
			msg += ": items are not persisted when `store` is set to false; send reasoning items with their encrypted_content (include reasoning.encrypted_content)"
		}
		return errors.New(msg)
	}
	seal, ok := openSeal(*it.EncryptedContent)
	if !ok {
		return fmt.Errorf("the encrypted content for item %s could not be verified", it.ID)
	}
	sent := rsAnswer{encrypted: true}.reasoning(seal.ID, seal.Text, seal.Redacted)
	switch {
	case it.ID != sent.ID:
		return fmt.Errorf("reasoning item %s carries the encrypted content of item %s", it.ID, sent.ID)
	case !slices.Equal(it.Summary, sent.Summary):
		return fmt.Errorf("reasoning item %s: summary altered (the server sent %s, the request has %s)",
			it.ID, marshal(sent.Summary), marshal(it.Summary))
	}
	return nil
}

// checkResponses checks a Responses request as the API does: every
// function_call_output answers an earlier function_call with its call_id,
// every function_call is answered exactly once, no call_id is used twice,
// and every reasoning item is one the server sent, unchanged.
func (v *RequestView) checkResponses() error {
	var problems []error
	called := map[string]bool{}   // call ids of the function calls so far
	answered := map[string]bool{} // call ids answered so far
	for i, m := range v.Messages {
		for _, blk := range m.Blocks {
			switch blk.Type {
			case "tool_use":
				if called[blk.ID] {
					problems = append(problems, fmt.Errorf("message %d: duplicate function_call call_id %s", i, blk.ID))
				}
				called[blk.ID] = true
				if blk.Name == "" {
					problems = append(problems, fmt.Errorf("message %d: function_call %s without a name", i, blk.ID))
				}
			case "tool_result":
				switch {
				case !called[blk.ID]:
					problems = append(problems, fmt.Errorf("message %d: no function_call found for function_call_output with call_id %s", i, blk.ID))
				case answered[blk.ID]:
					problems = append(problems, fmt.Errorf("message %d: function_call %s answered twice", i, blk.ID))
				}
				answered[blk.ID] = true
			case "thinking", "redacted_thinking":
				if err := v.checkEchoedReasoning(blk); err != nil {
					problems = append(problems, fmt.Errorf("message %d: %w", i, err))
				}
			}
		}
	}
	var missing []string
	for id := range called {
		if !answered[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		problems = append(problems, fmt.Errorf("no function_call_output found for function calls %v", missing))
	}
	return errors.Join(problems...)
}

// checkEchoedReasoning checks a reasoning block read from a request.
func (v *RequestView) checkEchoedReasoning(blk ViewBlock) error {
	it := rsInputItem{Type: "reasoning", ID: blk.ID}
	if blk.Signature != "" {
		it.EncryptedContent = &blk.Signature
	}
	if blk.Type == "thinking" {
		it.Summary = []rsSummaryText{{Type: "summary_text", Text: blk.Text}}
	}
	return checkReasoningItem(it, false)
}
