package repl

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// Resumer is what /resume needs of the session (app.Session): the
// workspace's saved sessions, and switching the running chat to one.
type Resumer interface {
	// Sessions lists the workspace's saved sessions but the one in use,
	// newest first.
	Sessions(ctx context.Context) ([]session.Info, error)
	// SwitchTo makes session id (or a unique prefix of one) the session
	// in use: its history, active skills, model and id.
	SwitchTo(ctx context.Context, id string) error
}

const (
	// resumeListed bounds the sessions /resume lists; /resume N reaches
	// further, and `clawseed sessions list` shows them all.
	resumeListed = 20
	// replayExchanges is how many exchanges /resume replays.
	replayExchanges = 3
	// replayRunes bounds a reply's line in the replay (a user's is a
	// session title: session.Title).
	replayRunes = 160
	// indexDigits: a number shorter than this is a place in the list; a
	// longer one is an id prefix (ids start with the 8-digit date).
	indexDigits = 8
)

// resume runs /resume [N|ID]: no argument lists the workspace's other
// sessions, numbered; a number picks one of that list, anything else is
// a session id or a unique prefix of one. The chat then goes on with that
// session, and its last exchanges are shown in brief.
func (c *Chat) resume(ctx context.Context, args string) {
	if c.Resume == nil {
		fmt.Fprintln(c.Out, "Sessions are off ([sessions].enabled = false): there is nothing to resume.")
		return
	}
	list, err := c.Resume.Sessions(ctx)
	if err != nil {
		fmt.Fprintln(c.Err, "✗ "+termtext.Escape(err.Error()))
		return
	}
	if args == "" {
		listSessions(c.Out, list)
		return
	}
	id := args
	if n, err := strconv.Atoi(args); err == nil && len(args) < indexDigits {
		if n < 1 || n > len(list) {
			fmt.Fprintf(c.Err, "✗ no session %d: /resume lists %d\n", n, len(list))
			return
		}
		id = list[n-1].ID
	}
	// Not cancellable by Ctrl-C: a switch half done would leave the chat
	// between two sessions. What it waits for is bounded (the memory
	// extraction of the last turn, a session summary update).
	if err := c.Resume.SwitchTo(ctx, id); err != nil {
		fmt.Fprintln(c.Err, "✗ "+termtext.Escape(err.Error()))
		return
	}
	c.resumed()
}

// listSessions prints the sessions /resume offers, numbered.
func listSessions(w io.Writer, list []session.Info) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No other saved session in this workspace (clawseed sessions list --all shows every workspace's).")
		return
	}
	fmt.Fprintln(w, "Sessions of this workspace, newest first (/resume N or /resume ID switches to one):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, in := range list[:min(len(list), resumeListed)] {
		model := in.Model
		if model == "" {
			model = "-"
		}
		fmt.Fprintf(tw, "  %d.\t%s\t%s\t%d messages\t%s\t%s\n", i+1, in.ID, in.Updated.Local().Format("2006-01-02 15:04"),
			in.Messages, termtext.EscapeLine(model), Preview(in.Title, 60))
	}
	tw.Flush()
	if n := len(list) - resumeListed; n > 0 {
		fmt.Fprintf(w, "  … and %d older (clawseed sessions list)\n", n)
	}
}

// resumed says which session the chat now goes on with, and replays its
// last exchanges in brief.
func (c *Chat) resumed() {
	hist := c.Agent.History()
	id := ""
	if c.Status != nil {
		id = " " + c.Status().SessionID
	}
	line := fmt.Sprintf("Resumed session%s: %d messages, model %s", id, len(hist), termtext.EscapeLine(c.Agent.ModelName()))
	if set := c.Agent.Skills(); set != nil {
		var names []string
		for _, a := range set.List() {
			names = append(names, termtext.EscapeLine(a.Skill.Name))
		}
		if len(names) > 0 {
			line += ", active skills: " + strings.Join(names, ", ")
		}
	}
	fmt.Fprintln(c.Out, line+".")
	for _, l := range Replay(hist, replayExchanges) {
		fmt.Fprintln(c.Out, "  "+l.String())
	}
}

// A ReplayLine is one message of a transcript replayed in brief (/resume):
// who spoke, what they said on one line, and the tools a reply called.
type ReplayLine struct {
	// Role is providers.RoleUser or providers.RoleAssistant.
	Role providers.Role
	// Text is the message's text on one line, shortened, with control
	// characters escaped; "" for a reply that only called tools.
	Text string
	// Tools names the tools a reply called, in order.
	Tools []string
}

// String is the line the plain chat prints: "you: …", "assistant: …",
// with the tools called in brackets.
func (l ReplayLine) String() string {
	who := "assistant:"
	if l.Role == providers.RoleUser {
		who = "you:"
	}
	s := who
	if l.Text != "" {
		s += " " + l.Text
	}
	if len(l.Tools) > 0 {
		s += " [" + strings.Join(l.Tools, ", ") + "]"
	}
	return s
}

// Replay gives the last max exchanges of history in brief: each user
// message (tool results left out) and each reply, one line each. A
// compaction's summary stands as one line saying so.
func Replay(history []providers.Message, max int) []ReplayLine {
	start := len(history)
	for n := 0; start > 0 && n < max; {
		start--
		if userText(history[start]) {
			n++
		}
	}
	var out []ReplayLine
	for _, m := range history[start:] {
		switch {
		case userText(m):
			text := session.Title(m.Text())
			if strings.HasPrefix(text, "<compaction_summary>") {
				text = "(the earlier conversation, summarised)"
			}
			out = append(out, ReplayLine{Role: providers.RoleUser, Text: termtext.EscapeLine(text)})
		case m.Role == providers.RoleAssistant:
			l := ReplayLine{Role: providers.RoleAssistant}
			if t := strings.TrimSpace(m.Text()); t != "" {
				l.Text = Preview(t, replayRunes)
			}
			for _, call := range m.ToolCalls() {
				l.Tools = append(l.Tools, termtext.EscapeLine(call.Name))
			}
			if l.Text != "" || len(l.Tools) > 0 {
				out = append(out, l)
			}
		}
	}
	return out
}

// userText reports whether m is something the user said (or a summary
// in its place), not tool results.
func userText(m providers.Message) bool {
	return m.Role == providers.RoleUser && len(m.ToolResults()) == 0 && m.Text() != ""
}
