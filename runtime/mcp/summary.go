package mcp

import "strings"

// serverSummary names the connected servers with their tool counts.
func (m *Manager) serverSummary() string {
	var parts []string
	for _, st := range m.Status() {
		if st.State == StateConnected {
			parts = append(parts, st.Label())
		}
	}
	if len(parts) == 0 {
		return "none connected"
	}
	return strings.Join(parts, ", ")
}

// FirstLine returns the first line of s, at most n bytes (a description
// in a listing).
func FirstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
