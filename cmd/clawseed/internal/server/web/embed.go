// Package web is the page `clawseed serve` serves at GET /: plain HTML, CSS
// and JavaScript modules, no build step and nothing fetched from elsewhere.
// The server embeds it through Files; web_test.go drives it in a real
// headless Chromium against a fake of the API.
package web

import (
	"embed"
	"io/fs"
)

//go:embed index.html style.css *.js
var files embed.FS

// Files returns the page's files: index.html at the root, the style sheet
// and the JavaScript modules it loads.
func Files() fs.FS {
	return files
}
