package tui

import (
	"path"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
)

// menuRows bounds the entries the menu shows at once.
const menuRows = 8

// A menu completes what is being typed: a slash command or skill (with
// its description) when the input is "/word", a workspace file when the
// word at the cursor is "@path".
type menu struct {
	// commands are the / entries, as the worker last sent them (see
	// Options.Commands): the program never asks for them itself.
	commands []repl.MenuEntry
	// files lists the workspace's files; fileList is its result, fetched
	// once in the background.
	files    func() []string
	fileList []string
	loading  bool

	kind     menuKind
	items    []menuItem
	selected int
	// word is the text being completed ("/na", "@src/ma").
	word string
}

type menuKind int

const (
	menuNone menuKind = iota
	menuSlash
	menuFile
)

// A menuItem is one entry: what it inserts and how it reads.
type menuItem struct {
	insert, label, help string
	// send is set for a command that takes no arguments: Enter runs it.
	send bool
}

// filesMsg brings the workspace's file list.
type filesMsg struct{ files []string }

func (mn *menu) open() bool { return mn.kind != menuNone && len(mn.items) > 0 }

func (mn *menu) close() {
	mn.kind, mn.items, mn.selected, mn.word = menuNone, nil, 0, ""
}

func (mn *menu) move(d int) {
	if n := len(mn.items); n > 0 {
		mn.selected = (mn.selected + d + n) % n
	}
}

// refreshMenu opens, filters or closes the menu after the input changed.
func (m *model) refreshMenu() tea.Cmd {
	v := m.input.Value()
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n\t") {
		m.slashItems(v)
		return nil
	}
	if word, ok := m.atWord(); ok {
		return m.fileItems(word)
	}
	m.menu.close()
	return nil
}

// slashItems lists the commands and skills whose names start with what is
// typed, then those that hold it.
func (m *model) slashItems(word string) {
	mn := &m.menu
	q := strings.ToLower(strings.TrimPrefix(word, "/"))
	var prefix, inner []menuItem
	for _, c := range mn.commands {
		name := strings.ToLower(strings.TrimPrefix(c.Name, "/"))
		it := menuItem{insert: c.Name, label: c.Name, help: c.Help, send: c.Args == ""}
		if c.Args != "" {
			it.label += " " + c.Args
			it.insert += " "
		}
		switch {
		case strings.HasPrefix(name, q):
			prefix = append(prefix, it)
		case strings.Contains(name, q):
			inner = append(inner, it)
		}
	}
	m.setItems(menuSlash, word, append(prefix, inner...))
}

// atWord is the word before the cursor when it starts with "@".
func (m *model) atWord() (string, bool) {
	lines := strings.Split(m.input.Value(), "\n")
	row := m.input.Line()
	if row >= len(lines) {
		return "", false
	}
	r := []rune(lines[row])
	col := min(m.input.Column(), len(r))
	start := col
	for start > 0 && !isSpace(r[start-1]) {
		start--
	}
	word := string(r[start:col])
	return word, strings.HasPrefix(word, "@")
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' }

// fileItems lists the files matching an @word: a path starting with it
// first, then a base name starting with it, then a path holding it.
func (m *model) fileItems(word string) tea.Cmd {
	mn := &m.menu
	if mn.files == nil {
		mn.close()
		return nil
	}
	if mn.fileList == nil {
		mn.kind, mn.word = menuFile, word
		if mn.loading {
			return nil
		}
		mn.loading = true
		list := mn.files
		return func() tea.Msg { return filesMsg{files: list()} }
	}
	q := strings.ToLower(strings.TrimPrefix(word, "@"))
	var ranked [3][]menuItem
	for _, f := range mn.fileList {
		lf := strings.ToLower(f)
		rank := -1
		switch {
		case strings.HasPrefix(lf, q):
			rank = 0
		case strings.HasPrefix(path.Base(lf), q):
			rank = 1
		case strings.Contains(lf, q):
			rank = 2
		}
		if rank >= 0 && len(ranked[rank]) < 200 {
			ranked[rank] = append(ranked[rank], menuItem{insert: "@" + f + " ", label: "@" + f})
		}
	}
	var items []menuItem
	for _, r := range ranked {
		items = append(items, r...)
	}
	m.setItems(menuFile, word, items)
	return nil
}

func (m *model) setItems(kind menuKind, word string, items []menuItem) {
	mn := &m.menu
	if mn.kind != kind || mn.word != word {
		mn.selected = 0
	}
	mn.kind, mn.word, mn.items = kind, word, items
	if mn.selected >= len(items) {
		mn.selected = 0
	}
}

// gotFiles takes the file list and shows the matches of what is typed now.
func (m *model) gotFiles(files []string) tea.Cmd {
	sort.Strings(files)
	if files == nil {
		files = []string{}
	}
	m.menu.fileList, m.menu.loading = files, false
	return m.refreshMenu()
}

// acceptMenu puts the selected entry into the editor; with run set (Enter)
// a command that takes no arguments is sent at once.
func (m *model) acceptMenu(run bool) tea.Cmd {
	mn := &m.menu
	it := mn.items[mn.selected]
	kind, word := mn.kind, mn.word
	mn.close()
	if kind == menuSlash {
		if run && it.send {
			m.input.Reset()
			return m.send(it.insert, "")
		}
		m.input.SetValue(it.insert)
		m.input.CursorEnd()
		return nil
	}
	lines := strings.Split(m.input.Value(), "\n")
	row := m.input.Line()
	r := []rune(lines[row])
	col := min(m.input.Column(), len(r))
	start := col - len([]rune(word))
	lines[row] = string(r[:start]) + it.insert + string(r[col:])
	m.setValue(strings.Join(lines, "\n"), row, start+len([]rune(it.insert)))
	return nil
}

// view draws the menu: the visible window of entries around the
// selection, the selected one marked.
func (mn *menu) view(color bool, width int) string {
	if mn.kind == menuFile && mn.fileList == nil {
		return render(color, styleDim, "  listing files…")
	}
	if !mn.open() {
		return ""
	}
	first := 0
	if mn.selected >= menuRows {
		first = mn.selected - menuRows + 1
	}
	last := min(first+menuRows, len(mn.items))
	labelW := 0
	for _, it := range mn.items[first:last] {
		labelW = max(labelW, ansi.StringWidth(it.label))
	}
	labelW = min(labelW, width/2)
	var rows []string
	for i := first; i < last; i++ {
		it := mn.items[i]
		label := termtext.EscapeLine(it.label)
		line := "  " + label
		if it.help != "" {
			line += strings.Repeat(" ", max(labelW-ansi.StringWidth(label), 0)) + "  " + render(color, styleDim, termtext.EscapeLine(it.help))
		}
		line = ansi.Truncate(line, width, "…")
		if i == mn.selected {
			line = render(color, styleAccent, ansi.Truncate("› "+label, width, "…")) + ansi.TruncateLeft(ansi.Truncate(line, width, "…"), 2+ansi.StringWidth(label), "")
		}
		rows = append(rows, line)
	}
	if more := len(mn.items) - last; more > 0 {
		rows = append(rows, render(color, styleDim, "  …"))
	}
	return strings.Join(rows, "\n")
}

func truncate(s string, width int) string { return ansi.Truncate(s, width, "…") }
