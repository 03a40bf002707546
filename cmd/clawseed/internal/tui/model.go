package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/mdterm"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/session"
)

// Messages from the worker and turn goroutines to the program.
type (
	// readMsg asks for the next input.
	readMsg struct {
		prompt string
		reply  chan<- readResult
		status string
		// commands are the / menu's entries now (skills come and go):
		// asked on the worker goroutine, see Options.Commands.
		commands []repl.MenuEntry
		// gen is the last input sent: its turn is over.
		gen int
	}
	// readCancelMsg withdraws a readMsg (its context ended).
	readCancelMsg struct{}
	// quitMsg ends the program, clearing the live area.
	quitMsg struct{}
	// liveMsg replaces what the live area shows of the running turn.
	liveMsg struct{ live liveView }
	// statusMsg replaces the status line.
	statusMsg struct{ line string }
	// tickMsg moves the spinner.
	tickMsg struct{ seq int }
)

// liveView is what the running turn shows above the editor: the reply's
// unfinished block, the calls running with the tail of their output, and
// what the agent waits for.
type liveView struct {
	// Pending is the unfinished Markdown block as the model sent it: the
	// view escapes it and wraps it to the width of the moment.
	Pending string
	// Calls are the running calls' lines (header, then output tail).
	Calls []string
	// Activity names what the agent waits for ("Thinking", "Running
	// Shell go test"); "" hides the spinner.
	Activity string
	// gen is the input the turn answers: a live view of a turn already
	// over (a sink call that raced the next prompt) is dropped.
	gen int
	// ended is set once the turn is over (its EventTurnEnd): the prompt
	// comes next, and Esc or Ctrl-C are not the turn's any more.
	ended bool
}

// model is the program's state; only the program's goroutine touches it.
type model struct {
	ui            *UI
	width, height int
	color         bool

	input textarea.Model
	// pastes are the large pastes in the editor, in order.
	pastes  []pasted
	history history
	search  *search
	menu    menu

	// reading is the pending request for input, nil while the agent
	// works; queued holds what was sent while it worked.
	reading *readMsg
	queued  []readResult
	prompt  string
	// ctrlC counts Ctrl-C pressed on an empty editor.
	hint string

	busySince time.Time
	live      liveView
	// doneGen is the last input whose turn is over.
	doneGen int
	tick    int
	status  string

	approval *approvalState
	picker   *picker
	quitting bool

	// planMode and todos follow the agent's events (plan.go).
	planMode bool
	// acceptEdits follows the agent's accept_edits events (plan.go).
	acceptEdits bool
	todos       []session.Todo
}

func newModel(o Options, u *UI) *model {
	m := &model{ui: u, width: o.Width, height: o.Height, color: o.Color}
	if m.width <= 0 {
		m.width = 80
	}
	m.history = history{entries: append([]string(nil), o.History...)}
	m.history.reset()
	m.input = newEditor(m.width, o.Color)
	m.menu.files = o.Files
	return m
}

// newEditor is the multi-line input: Enter is ours (send), the editor
// inserts a newline on Shift+Enter, Alt+Enter and Ctrl+J.
func newEditor(width int, color bool) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 12
	ta.MaxContentHeight = 12
	ta.CharLimit = 0
	ta.KeyMap.InsertNewline.SetKeys("shift+enter", "alt+enter", "ctrl+j")
	ta.KeyMap.DeleteCharacterForward.SetKeys("delete")
	ta.SetPromptFunc(2, func(info textarea.PromptInfo) string {
		if info.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	st := textarea.DefaultDarkStyles()
	plain := lipgloss.NewStyle()
	for _, s := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		s.Base, s.CursorLine, s.Text, s.EndOfBuffer, s.Prompt = plain, plain, plain, plain, plain
		s.Placeholder = plain.Faint(true)
		if !color {
			s.Placeholder = plain
		}
	}
	ta.SetStyles(st)
	ta.SetWidth(width)
	ta.Placeholder = placeholder(width)
	ta.Focus()
	return ta
}

// placeholder is the editor's hint, as much as fits: the editor wraps a
// longer one.
func placeholder(width int) string {
	for _, p := range []string{"Type a message · / for commands · @ for files", "Type a message · / commands · @ files", "Type a message"} {
		if ansi.StringWidth(p)+3 <= width {
			return p
		}
	}
	return ""
}

func (m *model) now() time.Time { return m.ui.now() }

// turnRunning reports whether the agent works on what was sent (a turn, a
// command such as /compact): Esc and Ctrl-C interrupt it. Between a
// turn's end and the next prompt they do not — an interrupt then would
// wait in the chat's channel and cancel the next turn.
func (m *model) turnRunning() bool {
	return m.reading == nil && !m.busySince.IsZero() && !m.live.ended
}

func (m *model) Init() tea.Cmd { return textarea.Blink }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.ui.width.Store(int64(msg.Width))
		m.input.SetWidth(msg.Width)
		m.input.Placeholder = placeholder(msg.Width)
		return m, nil
	case quitMsg:
		m.quitting = true
		return m, tea.Quit
	case readMsg:
		return m, m.startRead(msg)
	case readCancelMsg:
		m.setReading(nil)
		return m, nil
	case liveMsg:
		if msg.live.gen > m.doneGen {
			m.live = msg.live
		}
		return m, nil
	case statusMsg:
		m.status = msg.line
		return m, nil
	case planModeMsg:
		m.planMode = msg.on
		return m, nil
	case acceptEditsMsg:
		m.acceptEdits = msg.on
		return m, nil
	case todosMsg:
		m.todos = msg.items
		return m, nil
	case tickMsg:
		if msg.seq != m.tick || m.reading != nil {
			return m, nil
		}
		return m, m.nextTick()
	case pickMsg:
		m.picker = &picker{msg: msg, list: menu{kind: menuSlash, items: msg.items}}
		m.busySince = time.Time{} // the choice is the user's: no spinner
		return m, nil
	case filesMsg:
		return m, m.gotFiles(msg.files)
	case approvalMsg:
		m.approval = newApprovalState(msg, m.color)
		return m, nil
	case approvalCancelMsg:
		m.approval = nil
		return m, nil
	case tea.PasteMsg:
		if m.approval != nil {
			return m, m.approval.paste(msg.Content)
		}
		m.paste(msg.Content)
		return m, nil
	case tea.KeyPressMsg:
		if m.approval != nil {
			return m, m.approvalKey(msg)
		}
		if m.picker != nil {
			return m, m.pickKey(msg)
		}
		return m, m.key(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// startRead takes a request for input: a message queued while the agent
// worked answers it at once.
func (m *model) startRead(msg readMsg) tea.Cmd {
	m.status = msg.status
	m.live = liveView{}
	m.doneGen = max(m.doneGen, msg.gen)
	m.menu.commands = msg.commands
	var menuCmd tea.Cmd
	if strings.HasPrefix(m.input.Value(), "/") {
		// Typed ahead: the menu shows the entries of now (the skills
		// once the session is built).
		menuCmd = m.refreshMenu()
	}
	m.busySince = time.Time{}
	if len(m.queued) > 0 {
		next := m.queued[0]
		m.queued = m.queued[1:]
		msg.reply <- next
		if next.err != nil {
			return menuCmd
		}
		return tea.Batch(menuCmd, m.startBusy())
	}
	m.setReading(&msg)
	m.prompt = ""
	if msg.prompt != "" && msg.prompt != repl.Prompt {
		m.prompt = strings.TrimSpace(msg.prompt)
	}
	return menuCmd
}

func (m *model) setReading(r *readMsg) {
	m.reading = r
	m.ui.reading.Store(r != nil)
}

// answer replies to the pending read.
func (m *model) answer(res readResult) {
	m.reading.reply <- res
	m.setReading(nil)
}

// startBusy starts the spinner: the agent works from now.
func (m *model) startBusy() tea.Cmd {
	m.busySince = m.now()
	m.tick++
	return m.nextTick()
}

func (m *model) nextTick() tea.Cmd {
	seq := m.tick
	return tea.Tick(spinnerInterval, func(time.Time) tea.Msg { return tickMsg{seq: seq} })
}

// send answers the pending read with text, or queues it while the agent
// works.
func (m *model) send(text, shown string) tea.Cmd {
	m.history.add(text)
	m.history.reset()
	res := readResult{text: text, shown: shown}
	if m.reading == nil {
		m.queued = append(m.queued, res)
		return nil
	}
	m.answer(res)
	return m.startBusy()
}

// View is the live area: the running turn, the editor (or the approval
// dialog), the menu and the status line.
func (m *model) View() tea.View {
	if m.quitting {
		return tea.NewView("")
	}
	var b strings.Builder
	w := max(m.width, 20)
	if m.live.Pending != "" {
		b.WriteString(mdterm.Wrap(m.live.Pending, w))
	}
	for _, l := range m.live.Calls {
		b.WriteString(ansi.Truncate(l, w, "…"))
		b.WriteString("\n")
	}
	if m.approval == nil && (m.live.Activity != "" || (m.reading == nil && !m.busySince.IsZero())) {
		b.WriteString(m.spinnerLine())
		b.WriteString("\n")
	}
	if m.approval != nil {
		b.WriteString(m.approval.view(w))
		return tea.NewView(b.String())
	}
	b.WriteString(m.todoView(w))
	for _, q := range m.queued {
		b.WriteString(render(m.color, styleDim, ansi.Truncate("queued: "+firstLine(termtext.EscapeLine(q.shown)), w, "…")))
		b.WriteString("\n")
	}
	if m.prompt != "" {
		b.WriteString(ansi.Wrap(termtext.Escape(m.prompt), w, ""))
		b.WriteString("\n")
	}
	rule := render(m.color, styleBorder, strings.Repeat("─", w))
	b.WriteString(rule + "\n")
	switch {
	case m.picker != nil:
		b.WriteString(m.picker.view(m.color, w))
	case m.search != nil:
		b.WriteString(m.search.view(m.color, w))
	default:
		b.WriteString(m.input.View())
	}
	b.WriteString("\n" + rule)
	if line := m.modeLine(w); line != "" {
		b.WriteString("\n" + line)
	}
	if menu := m.menu.view(m.color, w); menu != "" {
		b.WriteString("\n" + menu)
	}
	if m.hint != "" {
		b.WriteString("\n" + render(m.color, styleDim, ansi.Truncate(m.hint, w, "…")))
	} else if m.status != "" {
		b.WriteString("\n" + render(m.color, styleDim, ansi.Truncate(m.status, w, "…")))
	}
	return tea.NewView(b.String())
}

// spinnerFrames are the spinner's frames.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// spinnerLine is the spinner, what the agent waits for, the time it has
// waited and how to interrupt it.
func (m *model) spinnerLine() string {
	frames := []rune(spinnerFrames)
	elapsed := time.Duration(0)
	if !m.busySince.IsZero() {
		elapsed = m.now().Sub(m.busySince)
	}
	frame := frames[int(elapsed/spinnerInterval)%len(frames)]
	what := m.live.Activity
	if what == "" {
		what = "Working"
	}
	line := fmt.Sprintf("%c %s… %s · esc to interrupt", frame, what, formatElapsed(elapsed))
	return render(m.color, styleAccent, ansi.Truncate(line, max(m.width, 20), "…"))
}

// formatElapsed shows a wait as "3s" or "1m 05s".
func formatElapsed(d time.Duration) string {
	s := int(d / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm %02ds", s/60, s%60)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
