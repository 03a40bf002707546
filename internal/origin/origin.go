// Package origin compares URLs by origin: scheme, host and port, as
// browsers and the fetch standard do. Credentials and headers clawseed was
// configured to send to one origin (a provider's API key, an MCP server's
// headers) must never reach another, whatever redirects or endpoint events
// point at.
package origin

import (
	"net/url"
	"strings"
)

// Same reports whether a and b have the same scheme, host and port (a
// missing port is the scheme's default; case does not matter).
func Same(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

// port is u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
