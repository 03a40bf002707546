package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/clawseed/clawseed/internal/termtext"
)

// resumeCommand opens the session picker when sent without arguments.
const resumeCommand = "/resume"

type (
	// pickMsg shows a list to choose from in place of the editor.
	pickMsg struct {
		title string
		items []menuItem
		reply chan<- string // the chosen item's insert, "" when given up
	}
)

// picker is a list shown in place of the editor.
type picker struct {
	msg  pickMsg
	list menu
}

// pickSession lets the user choose one of this workspace's sessions (the
// picker of /resume): newest first, with when, how long and what it was
// about. It returns "/resume ID", or "" when there is none or the user
// gives up.
func (u *UI) pickSession(ctx context.Context) string {
	if u.opts.Sessions == nil {
		return resumeCommand
	}
	list, err := u.opts.Sessions(ctx)
	if err != nil || len(list) == 0 {
		return resumeCommand // the chat says why
	}
	items := make([]menuItem, 0, len(list))
	for _, s := range list {
		label := s.Updated.Local().Format("Jan 02 15:04") + "  " + termtext.EscapeLine(s.ID)
		help := termtext.EscapeLine(s.Title)
		if s.Err != "" {
			help = "unreadable: " + termtext.EscapeLine(s.Err)
		}
		items = append(items, menuItem{insert: resumeCommand + " " + s.ID, label: label, help: help})
	}
	reply := make(chan string, 1)
	u.send(pickMsg{title: "Resume which session? (↑/↓, Enter resumes, Esc cancels)", items: items, reply: reply})
	select {
	case choice := <-reply:
		return choice
	case <-ctx.Done():
		return ""
	case <-u.done:
		return ""
	}
}

// pickKey handles a key in the picker.
func (m *model) pickKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	switch msg.String() {
	case "up", "ctrl+p":
		p.list.move(-1)
	case "down", "ctrl+n":
		p.list.move(1)
	case "enter", "tab":
		p.msg.reply <- p.list.items[p.list.selected].insert
		m.picker = nil
	case "esc", "ctrl+c":
		p.msg.reply <- ""
		m.picker = nil
	}
	return nil
}

func (p *picker) view(color bool, width int) string {
	return render(color, styleWarn, truncate(p.msg.title, width)) + "\n" + p.list.view(color, width)
}
