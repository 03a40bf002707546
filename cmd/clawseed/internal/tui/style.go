package tui

import "charm.land/lipgloss/v2"

// A styleKind is one of the UI's text styles.
type styleKind int

const (
	stylePlain  styleKind = iota
	styleUser             // the echo of what the user sent
	styleDim              // secondary text: results, hints, status
	styleAccent           // tool headers, the spinner, menu selection
	styleError
	styleOK
	styleWarn
	styleBold
	styleBorder
)

// styleFor is the lipgloss style of a kind.
func styleFor(k styleKind) lipgloss.Style {
	st := lipgloss.NewStyle()
	switch k {
	case styleUser, styleBold:
		return st.Bold(true)
	case styleDim, styleBorder:
		return st.Faint(true)
	case styleAccent:
		return st.Foreground(lipgloss.Cyan)
	case styleError:
		return st.Foreground(lipgloss.Red)
	case styleOK:
		return st.Foreground(lipgloss.Green)
	case styleWarn:
		return st.Foreground(lipgloss.Yellow)
	}
	return st
}

// style renders text in a style when colour is on; text must already be
// escaped.
func (u *UI) style(k styleKind, text string) string { return render(u.color, k, text) }

func render(color bool, k styleKind, text string) string {
	if !color || text == "" || k == stylePlain {
		return text
	}
	return styleFor(k).Render(text)
}
