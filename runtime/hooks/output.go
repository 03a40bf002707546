package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Output is a hook's JSON answer (a command's stdout after exit 0 when it
// starts with `{`, or an http hook's 2xx body), Claude Code's fields
// verbatim.
type Output struct {
	// Continue false stops the turn after the hooks ran; StopReason is
	// shown to the user, not to the model.
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	// SuppressOutput hides the hook's stdout from the transcript; clawseed
	// never shows it, so it changes nothing.
	SuppressOutput bool `json:"suppressOutput"`
	// SystemMessage is shown to the user.
	SystemMessage string `json:"systemMessage"`
	// Decision "block" with Reason blocks (UserPromptSubmit, PostToolUse,
	// Stop, SubagentStop); PreToolUse's older "approve"/"block" mean
	// allow/deny.
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	// Specific is hookSpecificOutput.
	Specific *Specific `json:"hookSpecificOutput"`
}

// Specific is hookSpecificOutput: the fields of one event.
type Specific struct {
	// HookEventName, when set, must be the event that ran the hook.
	HookEventName string `json:"hookEventName"`
	// PermissionDecision is PreToolUse's allow, deny or ask, with its
	// reason (shown to the model for deny, to the user for ask).
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
	// UpdatedInput replaces a PreToolUse call's tool_input.
	UpdatedInput map[string]any `json:"updatedInput"`
	// AdditionalContext is text the model sees (PreToolUse, PostToolUse,
	// UserPromptSubmit, SessionStart, SubagentStart).
	AdditionalContext string `json:"additionalContext"`
	// Decision answers a PermissionRequest.
	Decision *PermissionAnswer `json:"decision"`
}

// PermissionAnswer is a PermissionRequest hook's answer.
type PermissionAnswer struct {
	// Behavior is allow or deny; Message says why a deny (the model sees
	// it).
	Behavior     string         `json:"behavior"`
	Message      string         `json:"message"`
	UpdatedInput map[string]any `json:"updatedInput"`
	// Interrupt with deny also stops the turn.
	Interrupt bool `json:"interrupt"`
}

// maxOutput caps what a hook's stdout or response body may hold: more is
// not an answer (the runner reports it instead of parsing it).
const maxOutput = 1 << 20

// IsJSON reports whether a hook's stdout is meant as JSON: its first
// non-space byte is `{`.
func IsJSON(out []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(out), []byte("{"))
}

// ParseOutput reads a hook's JSON answer for event. A value that is not a
// JSON object of Claude Code's fields, a field of the wrong type, or a
// decision that is not one of the event's is an error (the runner shows
// it as a warning and ignores the answer); fields clawseed does not know
// are ignored, as Claude Code adds some over time. hookSpecificOutput for
// another event is an error.
func ParseOutput(event string, data []byte) (Output, error) {
	var out Output
	if len(data) > maxOutput {
		return Output{}, fmt.Errorf("output of %d bytes is over the %d-byte limit", len(data), maxOutput)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&out); err != nil {
		return Output{}, fmt.Errorf("not valid JSON: %s", jsonError(err))
	}
	if dec.More() {
		return Output{}, errors.New("not valid JSON: more than one value")
	}
	if out.Specific != nil && out.Specific.HookEventName != "" && out.Specific.HookEventName != event {
		return Output{}, fmt.Errorf("hookSpecificOutput is for %q, not %s", out.Specific.HookEventName, event)
	}
	switch out.Decision {
	case "", "block":
	case "approve":
		if event != PreToolUse {
			return Output{}, fmt.Errorf("decision %q is not one of %s's (block)", out.Decision, event)
		}
	default:
		return Output{}, fmt.Errorf("decision %q is not one of block, approve", out.Decision)
	}
	if s := out.Specific; s != nil {
		switch s.PermissionDecision {
		case "", "allow", "deny", "ask":
		default:
			return Output{}, fmt.Errorf("permissionDecision %q is not one of allow, deny, ask", s.PermissionDecision)
		}
		if s.Decision != nil {
			switch s.Decision.Behavior {
			case "allow", "deny":
			default:
				return Output{}, fmt.Errorf("decision.behavior %q is not one of allow, deny", s.Decision.Behavior)
			}
		}
	}
	return out, nil
}

// jsonError is a JSON error in one line without Go's type names.
func jsonError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return "expected a JSON object"
		}
		return fmt.Sprintf("%q has the wrong type (%s)", field, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
