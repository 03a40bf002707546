package app

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
)

// bannerGrace is how long chat's banner waits for MCP servers: enough for
// a local server to connect or crash, short enough that the prompt still
// appears at once. Servers slower than that are shown as starting.
const bannerGrace = 250 * time.Millisecond

// Banner is chat's banner (§2.1), one string a line, for every chat front
// end: the version, the provider and model, the workspace and its trust,
// the skills found (by name, in the catalog's order), the project
// instruction files in the prompt, the MCP servers with their state, how
// commands run, and for a resumed session what it brought back. A list of
// names that does not fit in width columns ends with "+N more" (width ≤ 0:
// no limit); the other lines are not cut. Names come from files and the
// configuration: control characters are escaped. The MCP line waits a
// moment for the servers to start ([bannerGrace]).
func (s *Session) Banner(ctx context.Context, width int) []string {
	cfg := s.cfg
	line := termtext.EscapeLine
	var lines []string
	if v := s.proc.version(); v != "" {
		lines = append(lines, v)
	}
	lines = append(lines, fmt.Sprintf("provider %s · model %s · session %s", line(s.Provider()), line(s.Model()), s.ID()))
	trustNote := "trusted"
	if !cfg.Trusted {
		trustNote = "untrusted — /trust to change"
	}
	lines = append(lines, fmt.Sprintf("workspace %s (%s)", line(cfg.Workspace), trustNote))
	lines = append(lines, s.skillsLine(width))
	lines = append(lines, s.instructionsLine(width))
	if l := s.mcpLine(ctx, width); l != "" {
		lines = append(lines, l)
	}
	lines = append(lines, line(s.SandboxLine()))
	if s.resumed != nil {
		lines = append(lines, s.resumedLines()...)
	}
	return lines
}

// skillsLine names the skills the model or the user can use (listed in
// the index, or user-invocable only) but the bundled ones, which it
// counts (the same in every workspace, /skills lists them), and counts the
// hidden ones and the diagnostics.
func (s *Session) skillsLine(width int) string {
	if !s.cfg.Skills.Enabled {
		return "skills: disabled"
	}
	var names []string
	hidden, builtin := 0, 0
	for _, sk := range s.catalog.Skills {
		switch {
		case sk.Status == skills.StatusHidden:
			hidden++
		case sk.Status != skills.StatusListed && sk.Status != skills.StatusUserOnly:
		case sk.Source == skills.SourceBuiltin:
			builtin++
		default:
			names = append(names, termtext.EscapeLine(sk.Name))
		}
	}
	var more []string
	if builtin > 0 {
		more = append(more, fmt.Sprintf("%d built-in", builtin))
	}
	if hidden > 0 {
		more = append(more, fmt.Sprintf("%d hidden", hidden))
	}
	switch n := len(s.catalog.Diagnostics); n {
	case 0:
	case 1:
		more = append(more, "1 diagnostic")
	default:
		more = append(more, fmt.Sprintf("%d diagnostics", n))
	}
	suffix := ""
	if len(more) > 0 {
		suffix = "; " + strings.Join(more, ", ") + " (/skills)"
	}
	if len(names) == 0 {
		if builtin > 0 {
			return "skills: " + strings.TrimPrefix(suffix, "; ")
		}
		return "skills: none found" + suffix
	}
	return fitList("skills: ", names, suffix, width)
}

// instructionsLine names the project instruction files in the prompt.
func (s *Session) instructionsLine(width int) string {
	if !s.cfg.Instructions.Enabled {
		return "instructions: off ([instructions].enabled = false)"
	}
	files := s.InstructionFiles()
	if len(files) == 0 {
		return "instructions: no CLAUDE.md or AGENTS.md (/init writes one)"
	}
	for i, f := range files {
		files[i] = termtext.EscapeLine(f)
	}
	return fitList("instructions: ", files, "", width)
}

// mcpLine is the banner's MCP line: each server's state after a short
// grace ("github 12 tools", "docs starting", "broken failed", "repo not
// started: untrusted workspace"); "" without servers. The first request
// still waits for servers that are starting, up to their deadline.
func (s *Session) mcpLine(ctx context.Context, width int) string {
	if s.mcp == nil {
		return ""
	}
	wctx, cancel := context.WithTimeout(ctx, bannerGrace)
	defer cancel()
	s.mcp.Wait(wctx)
	var labels []string
	for _, st := range s.mcp.Status() {
		labels = append(labels, termtext.EscapeLine(st.Label()))
	}
	return fitList("mcp: ", labels, " — /mcp for status", width)
}

// resumedLines say what a resumed session brought back, and the last
// exchange, so the user knows where they left off.
func (s *Session) resumedLines() []string {
	ag := s.agent
	hist := ag.History()
	first := fmt.Sprintf("resumed: %d messages", len(hist))
	switch n := s.resumed.Compactions; n {
	case 0:
	case 1:
		first += " (compacted once)"
	default:
		first += fmt.Sprintf(" (compacted %d times)", n)
	}
	var names []string
	for _, act := range ag.Skills().List() {
		names = append(names, termtext.EscapeLine(act.Skill.Name))
	}
	if len(names) > 0 {
		first += ", active skills: " + strings.Join(names, ", ")
	}
	lines := []string{first}
	if s.ModelRestored() {
		lines = append(lines, fmt.Sprintf("model: %s (%s), as the session last used (--model or --provider chooses another)",
			termtext.EscapeLine(s.Model()), termtext.EscapeLine(s.ModelEntry())))
	}
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Role == providers.RoleUser && hist[i].Text() != "" && len(hist[i].ToolResults()) == 0 {
			lines = append(lines, "last: "+termtext.EscapeLine(session.Title(hist[i].Text())))
			break
		}
	}
	return lines
}

// fitList is prefix, the items joined by ", " and suffix, with as many
// items as fit in width columns (at least one) and "+N more" for the rest;
// width ≤ 0 fits them all. Columns are counted as runes. It measures each
// item once: with 10,000 skills, joining the list again for each count
// tried took a second.
func fitList(prefix string, items []string, suffix string, width int) string {
	line := func(k int) string {
		l := prefix + strings.Join(items[:k], ", ")
		if k < len(items) {
			l += fmt.Sprintf(" +%d more", len(items)-k)
		}
		return l + suffix
	}
	if width <= 0 || len(items) <= 1 {
		return line(len(items))
	}
	fixed := utf8.RuneCountInString(prefix) + utf8.RuneCountInString(suffix)
	widths := make([]int, len(items))
	all := fixed + len(", ")*(len(items)-1)
	for i, it := range items {
		widths[i] = utf8.RuneCountInString(it)
		all += widths[i]
	}
	if all <= width {
		return line(len(items))
	}
	// Short of all of them, each item more widens the line (by its width
	// and ", ", while "+N more" narrows by a digit at most): the first k
	// that does not fit ends the search.
	more := func(k int) int { return len(fmt.Sprintf(" +%d more", len(items)-k)) }
	k, used := 1, widths[0] // at least one item
	for k < len(items)-1 {
		next := used + len(", ") + widths[k]
		if fixed+next+more(k+1) > width {
			break
		}
		k, used = k+1, next
	}
	return line(k)
}
