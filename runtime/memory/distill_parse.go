package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// distillAnswer is the JSON object a distillation asks the model for.
type distillAnswer struct {
	Memories *[]distillItem `json:"memories"`
}

type distillItem struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

// ParseDistillAnswer parses a distillation's answer: one JSON object
// {"memories": [{"name", "type", "description", "content"}, …]} and
// nothing else, except white space and one Markdown code fence around it
// (models add them). Unknown keys, a name given twice, more than
// [MaxDistillMemories] memories and any field Save would refuse are
// errors that say what is wrong, so the model can be asked again. The
// memories come back trimmed, in the answer's order, with Body set from
// content.
func ParseDistillAnswer(text string) ([]Memory, error) {
	text = unfence(strings.TrimSpace(text))
	if text == "" {
		return nil, errors.New("the answer is empty")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var a distillAnswer
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("not the JSON object asked for: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text follows the JSON object")
	}
	if a.Memories == nil {
		return nil, errors.New(`the object has no "memories" array`)
	}
	items := *a.Memories
	if len(items) > MaxDistillMemories {
		return nil, fmt.Errorf("%d memories; at most %d in one answer", len(items), MaxDistillMemories)
	}
	out := make([]Memory, 0, len(items))
	seen := map[string]bool{}
	for i, it := range items {
		m := Memory{
			Name:        strings.TrimSpace(it.Name),
			Type:        strings.TrimSpace(it.Type),
			Description: strings.TrimSpace(it.Description),
			Body:        strings.TrimSpace(it.Content),
		}
		where := fmt.Sprintf("memories[%d]", i)
		if m.Name != "" {
			where += fmt.Sprintf(" (%q)", m.Name)
		}
		if err := validate(m); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if m.Body == "" {
			return nil, fmt.Errorf("%s: content must not be empty", where)
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("%s: the name is given twice; give each memory once", where)
		}
		seen[m.Name] = true
		out = append(out, m)
	}
	return out, nil
}

// unfence removes one Markdown code fence around the whole text
// ("```json\n…\n```").
func unfence(text string) string {
	if !strings.HasPrefix(text, "```") || !strings.HasSuffix(text, "```") || len(text) < 6 {
		return text
	}
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.ContainsAny(strings.TrimPrefix(first, "```"), "`{") {
		return text
	}
	return strings.TrimSpace(strings.TrimSuffix(rest, "```"))
}
