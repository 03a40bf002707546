package server

import (
	"io/fs"
	"mime"
	"net/http"
	"path"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/server/web"
)

// The web page: plain HTML, CSS and JavaScript embedded in the binary, no
// build step and nothing fetched from elsewhere (the Content-Security-
// Policy of every answer allows only the server itself). GET / is
// index.html of package web; GET /NAME any other file it embeds (the
// page's own files only: never its tests).

// webIndex is GET /.
func (s *Server) webIndex(w http.ResponseWriter, r *http.Request, _ *principal) {
	s.serveWebFile(w, r, "index.html")
}

// webFile is GET /{file}.
func (s *Server) webFile(w http.ResponseWriter, r *http.Request, _ *principal) {
	s.serveWebFile(w, r, r.PathValue("file"))
}

func (s *Server) serveWebFile(w http.ResponseWriter, r *http.Request, name string) {
	data, err := fs.ReadFile(web.Files(), path.Clean("/" + name)[1:])
	if err != nil || name == "" {
		writeError(w, notFound("no such page: "+r.URL.Path))
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))
	w.Write(data)
}
