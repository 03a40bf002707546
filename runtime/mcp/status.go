package mcp

import (
	"fmt"
	"strings"
)

// A ServerStatus describes one server for `clawseed mcp list` and /mcp.
type ServerStatus struct {
	Name      string `json:"name"`
	State     State  `json:"state"`
	Transport string `json:"transport"`
	// Target is the command line or URL.
	Target string `json:"target,omitempty"`
	Source string `json:"source,omitempty"`
	// Server is the name and version the server reported.
	Server      string `json:"server,omitempty"`
	Tools       int    `json:"tools"`
	SchemaBytes int    `json:"schema_bytes"`
	Prompts     int    `json:"prompts"`
	Resources   int    `json:"resources"`
	Restarts    int    `json:"restarts,omitempty"`
	Error       string `json:"error,omitempty"`
	// Stderr is the last lines a failed stdio server wrote.
	Stderr string `json:"stderr,omitempty"`
}

// StateText is the state as `mcp list` and /mcp show it: "connected",
// "failed", "not started: untrusted workspace".
func (s ServerStatus) StateText() string {
	if s.State == StateUntrusted {
		return "not started: untrusted workspace"
	}
	return string(s.State)
}

// Label names the server with its state in a few words, for the chat
// banner and tool_search: "github (12 tools)", "docs starting",
// "repo not started: untrusted workspace".
func (s ServerStatus) Label() string {
	if s.State == StateConnected {
		return fmt.Sprintf("%s (%s)", s.Name, plural(s.Tools, "tool"))
	}
	return s.Name + " " + s.StateText()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Status describes every server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{
		Name: s.cfg.Name, State: s.state, Transport: s.cfg.Transport, Source: s.cfg.Source,
		Server: s.info, Tools: len(s.tools), Prompts: len(s.prompts), Resources: len(s.resources),
		Restarts: s.restarts, Error: s.err,
	}
	if s.cfg.Transport == "stdio" {
		st.Target = strings.TrimSpace(s.cfg.Command + " " + strings.Join(s.cfg.Args, " "))
	} else {
		st.Target = s.cfg.URL
	}
	st.SchemaBytes = schemaBytes(s.tools)
	if s.state == StateFailed {
		st.Stderr = s.stderr.Lines(5)
	}
	return st
}

// ServerTools returns the tools of a server (those allowed_tools lets
// through), sorted by name; ok is false for an unknown server.
func (m *Manager) ServerTools(name string) (tools []*Tool, ok bool) {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			s.mu.Lock()
			defer s.mu.Unlock()
			return append([]*Tool(nil), s.tools...), true
		}
	}
	return nil, false
}
