package providertest

import (
	"encoding/json"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// A queue hands out scripted responses: in script order, except that a
// response with When is held back for the first request that mentions it.
// That lets a script answer requests whose position depends on the code
// under test (a compaction summary request, say) without counting them.
type queue struct {
	script []Response
	used   []bool
	// positional keeps the n-th request tied to the n-th response: a
	// request past the end uses up the slot of a response appended later.
	positional bool
	missed     int
}

func newQueue(script []Response) queue {
	return queue{script: script, used: make([]bool, len(script))}
}

func (q *queue) add(rs ...Response) {
	for _, r := range rs {
		q.script = append(q.script, r)
		q.used = append(q.used, q.missed > 0)
		if q.missed > 0 {
			q.missed--
		}
	}
}

// take returns the response for a request whose text is text: the first
// unused response whose When occurs in text, else the first unused one
// without When.
func (q *queue) take(text string) (Response, bool) {
	pick := -1
	for i, r := range q.script {
		if q.used[i] || r.When == "" {
			continue
		}
		if strings.Contains(text, r.When) {
			pick = i
			break
		}
	}
	if pick < 0 {
		for i, r := range q.script {
			if !q.used[i] && r.When == "" {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		if q.positional {
			q.missed++
		}
		return Response{}, false
	}
	q.used[pick] = true
	return q.script[pick], true
}

// hasWhen reports whether any response is conditional, so requests are only
// flattened to text when a script needs it.
func (q *queue) hasWhen() bool {
	for _, r := range q.script {
		if r.When != "" {
			return true
		}
	}
	return false
}

// bodyText returns every string value of a JSON body joined by newlines, so
// When matches what the model reads rather than its JSON escaping.
func bodyText(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return string(body)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			// Key order does not matter: the text is only searched.
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// requestText flattens a neutral request the way bodyText flattens a wire
// body.
func requestText(req providers.Request) string {
	var b strings.Builder
	b.WriteString(req.System)
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			b.WriteByte('\n')
			b.WriteString(p.Text)
			if p.ToolCall != nil {
				b.WriteString(p.ToolCall.Name + "\n" + p.ToolCall.Args)
			}
			if p.ToolResult != nil {
				b.WriteString(p.ToolResult.Content)
			}
		}
	}
	return b.String()
}
