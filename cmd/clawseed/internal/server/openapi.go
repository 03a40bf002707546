package server

import (
	_ "embed"
	"net/http"
	"time"
)

// openAPIDoc is the API's OpenAPI 3.1 description, written by hand;
// TestOpenAPIRoutes checks that it describes every route of the router
// and nothing else.
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPI is GET /openapi.json.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request, _ *principal) {
	w.Header().Set("Content-Type", "application/json")
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))
	w.Write(openAPIDoc)
}
