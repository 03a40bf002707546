package openai

import (
	"encoding/json"
	"strconv"

	"github.com/clawseed/clawseed/providers"
)

// eventError returns the classified error a Responses event reports, nil
// for any other event: an "error" event, response.failed (its
// response.error), and an error object some servers put in any event.
func (p *Provider) eventError(ev *respEvent) *providers.Error {
	switch {
	case ev.Type == "error":
		if len(ev.Error) > 0 && string(ev.Error) != "null" {
			return p.responsesError(ev.Error)
		}
		obj, _ := json.Marshal(struct {
			Code    json.RawMessage `json:"code,omitempty"`
			Message string          `json:"message"`
		}{ev.Code, ev.Message})
		return p.responsesError(obj)
	case ev.Type == "response.failed":
		if ev.Response != nil && len(ev.Response.Error) > 0 && string(ev.Response.Error) != "null" {
			return p.responsesError(ev.Response.Error)
		}
		return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name, Message: "response failed"}
	case len(ev.Error) > 0 && string(ev.Error) != "null":
		return p.responsesError(ev.Error)
	}
	return nil
}

// responsesError classifies an error object of the Responses API
// ({"code", "message"}): by its code (ResponseError's codes, and an HTTP
// status sent as a number), else by a message naming the context length,
// else transient, as a failure inside a 200 stream is on the chat wire.
func (p *Provider) responsesError(raw json.RawMessage) *providers.Error {
	code, msg := errorDetails([]byte(`{"error":` + string(raw) + `}`))
	e := &providers.Error{Kind: responsesErrorKind(code), Provider: p.cfg.Name, Message: msg}
	if n, err := strconv.Atoi(code); err == nil && n >= 400 && n <= 599 {
		e.StatusCode, e.Kind = n, providers.ClassifyStatus(n)
	}
	if code == "context_length_exceeded" || mentionsContextLength(msg) {
		e.Kind = providers.KindContextLength
	}
	if e.Message == "" {
		e.Message = "error event in stream"
		if code != "" {
			e.Message += ": " + code
		}
	}
	return e
}

// responsesErrorKind maps the codes of a failed response.
func responsesErrorKind(code string) providers.ErrorKind {
	switch code {
	case "context_length_exceeded":
		return providers.KindContextLength
	case "rate_limit_exceeded", "insufficient_quota":
		return providers.KindRateLimited
	case "invalid_prompt", "invalid_request_error", "bio_policy", "misalignment_policy_violation",
		"data_residency_mismatch", "invalid_image", "invalid_image_format", "invalid_base64_image",
		"invalid_image_url", "image_too_large", "image_too_small", "image_parse_error",
		"image_content_policy_violation", "invalid_image_mode", "image_file_too_large",
		"unsupported_image_media_type", "empty_image_file", "failed_to_download_image", "image_file_not_found":
		return providers.KindBadRequest
	}
	return providers.KindTransient // server_error, vector_store_timeout, unknown
}
