package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// An apiError is an HTTP error answer: its status and the body
// {"error":{"code":"snake_case","message":"human sentence"}}.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// writeError writes e as the answer.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="clawseed"`)
	}
	writeJSON(w, e.Status, struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{Error: struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{e.Code, e.Message}})
}

// writeJSON writes v as the JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"error":{"code":"internal","message":"the answer could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	// A client that does not take its answer is dropped.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// notFound is the answer about a session or call that does not exist
// (or that the caller may not see: the same answer, so that ids do not
// leak).
func notFound(what string) *apiError {
	return errorf(http.StatusNotFound, "not_found", "%s", what)
}
