package session

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/providers"
)

// titleRunes bounds [Session.Title] and [Info.Title].
const titleRunes = 80

// userPrefixLayout is the time stamp the agent puts before every user message
// ("[2026-11-22 03:19 +00:00] "); titles drop it.
const userPrefixLayout = "2006-01-02 15:04 -07:00"

// Parse reads the bytes of a session file. name (a path or a file name)
// starts every warning, and its base name without ".jsonl" is the session id
// when the header is missing.
//
// Lines that cannot be used are skipped with a warning; a last line without
// its newline is used when it is a whole valid record, else ignored (a write
// torn by a crash). Parse fails only when no line at all is a valid record;
// the error then wraps [ErrNoRecords]. It never panics.
func Parse(name string, data []byte) (*Session, error) {
	p := &parser{name: name, s: &Session{}}
	for n := 1; len(data) > 0; n++ {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		p.line(n, line, complete)
	}
	if p.s.Records == 0 {
		if k := len(p.s.Warnings); k > 0 {
			return nil, fmt.Errorf("%s: %w (skipped lines: %d)", name, ErrNoRecords, k)
		}
		return nil, fmt.Errorf("%s: %w", name, ErrNoRecords)
	}
	return p.s, nil
}

// A parser replays records into a Session.
type parser struct {
	name string
	s    *Session
}

func (p *parser) warn(n int, format string, args ...any) {
	p.s.Warnings = append(p.s.Warnings, fmt.Sprintf("%s:%d: ", p.name, n)+fmt.Sprintf(format, args...))
}

// line handles line n; complete is false for a last line without "\n".
func (p *parser) line(n int, line []byte, complete bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return // a blank line carries nothing
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		if !complete {
			p.warn(n, "torn last line ignored")
			return
		}
		p.warn(n, "invalid JSON, line skipped: %v", err)
		return
	}
	if err := check(&r); err != nil {
		p.warn(n, "%v, line skipped", err)
		return
	}
	p.apply(n, &r)
}

// apply replays one valid record.
func (p *parser) apply(n int, r *Record) {
	s := p.s
	first := s.Records == 0
	if r.Type == TypeHeader {
		if !first {
			p.warn(n, "header record after the first record, line skipped")
			return
		}
		s.Header = *r.Header
		if s.Header.ID == "" {
			s.Header.ID = idFromName(p.name)
			p.warn(n, "header without id; using the file name %q", s.Header.ID)
		}
		s.Records++
		return
	}
	if first {
		s.Header.ID = idFromName(p.name)
		p.warn(n, "missing header; using the file name %q as the id", s.Header.ID)
	}
	s.Records++
	switch r.Type {
	case TypeMessage:
		s.Messages = append(s.Messages, *r.Message)
		s.MessageRecords++
		if s.Title == "" && r.Message.Role == providers.RoleUser {
			s.Title = Title(r.Message.Text())
		}
	case TypeSkill:
		s.Skills = replaySkill(s.Skills, *r.Skill)
	case TypeCompaction:
		s.Messages = slices.Clone(r.Compaction.Messages)
		s.Summary = r.Compaction.Summary
		s.Lead = min(max(r.Compaction.Lead, 1), len(s.Messages))
		s.Compactions++
	case TypeFork:
		s.Forks++
	case TypeRecall:
		for _, m := range r.Recall.Memories {
			if !slices.Contains(s.Recalled, m) {
				s.Recalled = append(s.Recalled, m)
			}
		}
	case TypeModel:
		m := *r.Switch
		s.ModelSwitch = &m
	case TypeTodos:
		s.Todos = nil
		if len(r.Todos.Items) > 0 {
			s.Todos = slices.Clone(r.Todos.Items)
		}
	case TypeUsage:
		s.Usage.Add(*r.Usage)
		s.UsageByModel = providers.AddModelUsage(s.UsageByModel, cmp.Or(r.Model, s.Header.Model), *r.Usage)
		if r.Purpose != "" {
			s.UsageByPurpose = providers.AddPurposeUsage(s.UsageByPurpose, r.Purpose, cmp.Or(r.Model, s.Header.Model), *r.Usage)
		}
	}
}

// replaySkill applies one skill change to the active list: an activation
// replaces the skill in place when it is already active, else appends it.
func replaySkill(active []SkillState, c SkillChange) []SkillState {
	i := slices.IndexFunc(active, func(a SkillState) bool { return a.Name == c.Name })
	if c.Action == ActionDeactivate {
		if i >= 0 {
			active = slices.Delete(active, i, i+1)
		}
		if len(active) == 0 {
			return nil // as if never activated: a rewrite reads back the same
		}
		return active
	}
	st := SkillState{Name: c.Name, Args: c.Args, Hash: c.Hash}
	if i >= 0 {
		active[i] = st
		return active
	}
	return append(active, st)
}

// check reports why a decoded record cannot be used, or nil.
func check(r *Record) error {
	switch r.Type {
	case TypeHeader:
		if r.Header == nil {
			return errors.New("header record without header")
		}
	case TypeMessage:
		if r.Message == nil {
			return errors.New("message record without message")
		}
		if err := checkMessage(r.Message); err != nil {
			return fmt.Errorf("message record: %w", err)
		}
	case TypeSkill:
		if r.Skill == nil {
			return errors.New("skill record without skill")
		}
		if a := r.Skill.Action; a != ActionActivate && a != ActionDeactivate {
			return fmt.Errorf("skill record: action %q is not activate or deactivate", clip(a))
		}
		if r.Skill.Name == "" {
			return errors.New("skill record without name")
		}
	case TypeCompaction:
		if r.Compaction == nil {
			return errors.New("compaction record without compaction")
		}
		for i := range r.Compaction.Messages {
			if err := checkMessage(&r.Compaction.Messages[i]); err != nil {
				return fmt.Errorf("compaction record: message %d: %w", i+1, err)
			}
		}
	case TypeUsage:
		if r.Usage == nil {
			return errors.New("usage record without usage")
		}
	case TypeFork:
		if r.Fork == nil {
			return errors.New("fork record without fork")
		}
	case TypeRecall:
		if r.Recall == nil {
			return errors.New("recall record without recall")
		}
	case TypeModel:
		if r.Switch == nil || r.Switch.Name == "" || r.Switch.Model == "" {
			return errors.New("model_switch record without name and model")
		}
	case TypeTodos:
		if r.Todos == nil {
			return errors.New("todos record without todos")
		}
	default:
		return fmt.Errorf("unknown record type %q", clip(r.Type))
	}
	return nil
}

// checkMessage reports a message the providers could not send back.
func checkMessage(m *providers.Message) error {
	if m.Role != providers.RoleUser && m.Role != providers.RoleAssistant {
		return fmt.Errorf("role %q is not user or assistant", clip(string(m.Role)))
	}
	for i, part := range m.Parts {
		switch part.Type {
		case providers.PartText, providers.PartReasoning:
		case providers.PartToolCall:
			if part.ToolCall == nil {
				return fmt.Errorf("part %d: tool_call part without tool_call", i+1)
			}
		case providers.PartToolResult:
			if part.ToolResult == nil {
				return fmt.Errorf("part %d: tool_result part without tool_result", i+1)
			}
		case providers.PartImage:
			if part.Image == nil || len(part.Image.Data) == 0 || part.Image.MediaType == "" {
				return fmt.Errorf("part %d: image part without an image", i+1)
			}
		default:
			return fmt.Errorf("part %d: unknown part type %q", i+1, clip(string(part.Type)))
		}
	}
	return nil
}

// clip shortens a value quoted in a warning, which may come from any bytes.
func clip(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

// idFromName is the session id a file name implies.
func idFromName(name string) string {
	return strings.TrimSuffix(filepath.Base(name), ".jsonl")
}

// Title returns text as a session title: without the agent's time-stamp
// prefix, on one line, at most 80 characters.
func Title(text string) string {
	// Recalled memories come before the stamp (§8); they are not what
	// the user said.
	if strings.HasPrefix(text, "<memory_context>") {
		if _, after, ok := strings.Cut(text, "</memory_context>"); ok {
			text = strings.TrimLeft(after, " \t\r\n")
		}
	}
	if rest, ok := strings.CutPrefix(text, "["); ok {
		if stamp, after, ok := strings.Cut(rest, "] "); ok {
			if _, err := time.Parse(userPrefixLayout, stamp); err == nil {
				text = after
			}
		}
	}
	text = strings.Join(strings.Fields(strings.ToValidUTF8(text, "\uFFFD")), " ")
	if utf8.RuneCountInString(text) <= titleRunes {
		return text
	}
	return string([]rune(text)[:titleRunes-1]) + "…"
}
