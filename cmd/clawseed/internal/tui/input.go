package tui

import (
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
)

// key handles a key press at the editor.
func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.search != nil {
		return m.searchKey(msg)
	}
	k := msg.String()
	if k != "ctrl+c" {
		m.hint = ""
	}
	switch k {
	case "ctrl+c":
		return m.ctrlC()
	case "esc":
		switch {
		case m.menu.open():
			m.menu.close()
		case m.turnRunning():
			m.ui.interrupt()
			m.hint = "interrupting…"
		}
		return nil
	case "ctrl+d":
		// On an empty editor: leave — at once, or after the turn that runs
		// (queued like a message typed ahead).
		switch {
		case m.input.Value() != "":
		case m.reading != nil:
			m.answer(readResult{err: io.EOF})
		default:
			m.queued = append(m.queued, readResult{err: io.EOF, shown: "exit (Ctrl-D)"})
		}
		return nil
	case "enter":
		if m.menu.open() {
			return m.acceptMenu(true)
		}
		return m.enter()
	case "tab":
		if m.menu.open() {
			return m.acceptMenu(false)
		}
		return nil
	case "shift+tab":
		return m.cycleMode()
	case "up", "ctrl+p":
		if m.menu.open() {
			m.menu.move(-1)
			return nil
		}
		if m.input.Line() == 0 {
			m.historyMove(-1)
			return nil
		}
	case "down", "ctrl+n":
		if m.menu.open() {
			m.menu.move(1)
			return nil
		}
		if m.input.Line() == m.input.LineCount()-1 {
			m.historyMove(1)
			return nil
		}
	case "ctrl+o":
		if m.reading != nil && m.input.Value() == "" {
			m.answer(readResult{text: lastCommand})
		}
		return nil
	case "ctrl+r":
		m.search = &search{}
		m.search.find(m.history.entries)
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return tea.Batch(cmd, m.refreshMenu())
}

// ctrlC interrupts a running turn, clears a non-empty editor, and on an
// empty editor tells the chat (twice quits).
func (m *model) ctrlC() tea.Cmd {
	switch {
	case m.turnRunning():
		m.ui.interrupt()
		m.hint = "interrupting…"
	case m.input.Value() != "":
		m.input.Reset()
		m.clearPastes()
		m.menu.close()
	case m.reading != nil:
		m.answer(readResult{err: repl.ErrInterrupt})
	default:
		// The prompt is not asked yet (a turn just ended, the session is
		// being built): it takes the key when it comes, as Ctrl-D.
		m.queued = append(m.queued, readResult{err: repl.ErrInterrupt, shown: "Ctrl-C"})
	}
	return nil
}

// enter sends the input; a line ending in a backslash continues instead.
func (m *model) enter() tea.Cmd {
	v := m.input.Value()
	row := m.input.Line()
	lines := strings.Split(v, "\n")
	if row < len(lines) && strings.HasSuffix(lines[row], `\`) && m.input.Column() == len([]rune(lines[row])) {
		lines[row] = strings.TrimSuffix(lines[row], `\`)
		m.setValue(strings.Join(lines, "\n"), row, len([]rune(lines[row])))
		m.input.InsertString("\n")
		return nil
	}
	text := m.expandPastes(v)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	m.input.Reset()
	m.clearPastes()
	m.menu.close()
	return m.send(text, v)
}

// setValue replaces the editor's text and puts the cursor at row, col.
func (m *model) setValue(v string, row, col int) {
	m.input.SetValue(v)
	m.input.MoveToBegin()
	for range row {
		m.input.CursorDown()
	}
	m.input.SetCursorColumn(col)
}

// pasteLines is the size from which a paste shows as a placeholder.
const (
	pasteLines = 3
	pasteChars = 800
)

// paste inserts bracketed-paste content: small pastes as they are, large
// ones as a placeholder ("[pasted 20 lines]") that the whole text replaces
// when the input is sent — one message, however many lines.
func (m *model) paste(content string) {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	content = strings.ReplaceAll(content, "\r", "\n")
	n := strings.Count(strings.TrimSuffix(content, "\n"), "\n") + 1
	if n < pasteLines && len(content) < pasteChars {
		m.input.InsertString(content)
		return
	}
	label := fmt.Sprintf("[pasted %d lines]", n)
	if len(m.pastes) > 0 {
		label = fmt.Sprintf("[pasted %d lines #%d]", n, len(m.pastes)+1)
	}
	m.pastes = append(m.pastes, pasted{label, content})
	m.input.InsertString(label)
}

// pasted is a large paste and the placeholder that stands for it.
type pasted struct{ label, text string }

// expandPastes puts the pasted texts in place of their placeholders, in one
// pass (a pasted text holding a placeholder's words stays as it is).
func (m *model) expandPastes(v string) string {
	if len(m.pastes) == 0 {
		return v
	}
	pairs := make([]string, 0, 2*len(m.pastes))
	for _, p := range m.pastes {
		pairs = append(pairs, p.label, p.text)
	}
	return strings.NewReplacer(pairs...).Replace(v)
}

func (m *model) clearPastes() { m.pastes = nil }

// history is the inputs ↑ and ↓ walk through and Ctrl-R searches.
type history struct {
	entries []string
	// pos is the entry shown; len(entries) is the draft.
	pos   int
	draft string
}

func (h *history) reset() { h.pos = len(h.entries) }

func (h *history) add(text string) {
	if n := len(h.entries); n > 0 && h.entries[n-1] == text {
		return
	}
	h.entries = append(h.entries, text)
}

// historyMove shows the previous (-1) or next (+1) entry; past the newest
// the draft comes back.
func (m *model) historyMove(d int) {
	h := &m.history
	next := h.pos + d
	if next < 0 || next > len(h.entries) {
		return
	}
	if h.pos == len(h.entries) {
		h.draft = m.input.Value()
	}
	h.pos = next
	if next == len(h.entries) {
		m.input.SetValue(h.draft)
	} else {
		m.input.SetValue(h.entries[next])
	}
	m.input.CursorEnd()
	m.menu.close()
}

// search is a Ctrl-R reverse search through the history.
type search struct {
	query string
	// skip counts the newer matches passed over (Ctrl-R again).
	skip  int
	match string
}

// find sets match to the newest entry holding the query, past skip others.
func (s *search) find(entries []string) {
	s.match = ""
	seen := 0
	for i := len(entries) - 1; i >= 0; i-- {
		if strings.Contains(entries[i], s.query) {
			if seen == s.skip {
				s.match = entries[i]
				return
			}
			seen++
		}
	}
}

func (s *search) view(color bool, width int) string {
	line := fmt.Sprintf("(reverse-i-search)`%s': %s", termtext.EscapeLine(s.query), termtext.EscapeLine(firstLine(s.match)))
	return render(color, styleAccent, truncate(line, width))
}

// searchKey handles a key during a Ctrl-R search: Enter or Tab takes the
// match into the editor, Esc or Ctrl-G gives up, Ctrl-R looks further.
func (m *model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	s := m.search
	switch msg.String() {
	case "enter", "tab", "right", "left":
		if s.match != "" {
			m.input.SetValue(s.match)
			m.input.CursorEnd()
		}
		m.search = nil
	case "esc", "ctrl+g", "ctrl+c":
		m.search = nil
	case "ctrl+o":
		if m.reading != nil && m.input.Value() == "" {
			m.answer(readResult{text: lastCommand})
		}
		return nil
	case "ctrl+r":
		s.skip++
		s.find(m.history.entries)
		if s.match == "" {
			s.skip--
			s.find(m.history.entries)
		}
	case "backspace":
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
			s.skip = 0
			s.find(m.history.entries)
		}
	default:
		if msg.Text != "" {
			s.query += msg.Text
			s.skip = 0
			s.find(m.history.entries)
		}
	}
	return nil
}
