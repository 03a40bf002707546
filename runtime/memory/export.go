package memory

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// exportDocument renders memories (in List order) as one document:
// "markdown" (each file's text under a heading naming it) or "json" (an
// array of objects). Every store's Export is this.
func exportDocument(ms []Memory, format string) (string, error) {
	switch format {
	case "json":
		type jm struct {
			Name        string    `json:"name"`
			Description string    `json:"description"`
			Type        string    `json:"type"`
			Scope       string    `json:"scope"`
			Created     time.Time `json:"created"`
			Updated     time.Time `json:"updated"`
			File        string    `json:"file"`
			Content     string    `json:"content"`
		}
		out := make([]jm, 0, len(ms))
		for _, m := range ms {
			out = append(out, jm{m.Name, m.Description, m.Type, m.Scope, m.Created, m.Updated, m.Path, m.Body})
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return "", fmt.Errorf("memory: export: %w", err)
		}
		return string(b) + "\n", nil
	case "markdown", "md", "":
		var b strings.Builder
		b.WriteString("# Memories\n")
		for _, m := range ms {
			data, err := render(m)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "\n## %s\n\nFile: %s\n\n%s", m.Name, m.Path, data)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("memory: export: %w: format %q is not markdown or json", ErrInvalid, format)
}
