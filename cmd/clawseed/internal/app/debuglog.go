package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/skills"
)

// A session's debug log (the bundled debug skill, chat's /debug on|off):
// once on, every agent event (requests, responses, tool calls and their
// results, skill changes, errors) and every line of the process's log at
// debug level is written, one timestamped line each, to
// <workspace>/.clawseed/debug/<session id>.log, which file_read can read
// and no command can write (.clawseed/ is a control path, read-only in the
// sandbox). It is on for the rest of the process, or until turned off.

// debugDir is where the debug logs are, below the workspace.
const debugDir = ".clawseed/debug"

// maxDebugText caps an event's text in the log.
const maxDebugText = 4000

// debugLog is one session's; safe for concurrent use (sub-agents' events
// and the log's writers come from several goroutines).
type debugLog struct {
	workspace string
	mu        sync.Mutex
	file      *os.File
	log       *slog.Logger // nil when off
	path      string
}

// Enable turns the log on for session id (a no-op when it is on) and
// returns its path.
func (d *debugLog) Enable(id string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.log != nil {
		return d.path, nil
	}
	// A link the repository planted on the way must not send the log
	// elsewhere (workspaceFolder refuses it).
	dir, err := workspaceFolder(d.workspace, debugDir)
	if err != nil {
		return "", err
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := atomicfile.Write(ignore, []byte("*\n"), 0o644); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, id+".log")
	// A link the repository planted there must not send the log
	// elsewhere.
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("open the debug log: %w", err)
	}
	d.file, d.path = f, path
	d.log = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d.log.Info("Debug log on", "session", id, "workspace", d.workspace)
	return path, nil
}

// Disable turns the log off and closes its file.
func (d *debugLog) Disable() (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.log == nil {
		return "", false
	}
	d.log.Info("Debug log off")
	d.file.Close()
	d.log, d.file = nil, nil
	return d.path, true
}

// logger is the log while on, nil while off.
func (d *debugLog) logger() *slog.Logger {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.log
}

// event writes one agent event; the streamed pieces (text and reasoning
// deltas, a command's live output) are left out: the response and the
// tool result that follow hold them whole.
func (d *debugLog) event(ev agent.Event) {
	l := d.logger()
	if l == nil || ev.Type == agent.EventTextDelta || ev.Type == agent.EventReasoningDelta || ev.Type == agent.EventToolOutput {
		return
	}
	attrs := []any{"type", string(ev.Type)}
	for _, kv := range [][2]string{{"name", ev.Name}, {"id", ev.ID}, {"parent", ev.Parent}, {"status", ev.Status}, {"args", capText(ev.Args)}, {"text", capText(ev.Text)}, {"result", capText(ev.Result)}} {
		if kv[1] != "" {
			attrs = append(attrs, kv[0], kv[1])
		}
	}
	if r := ev.Response; r != nil {
		attrs = append(attrs, "model", r.Model, "stop", string(r.StopReason), "input_tokens", r.Usage.InputTokens, "output_tokens", r.Usage.OutputTokens)
		if t := r.Message.Text(); t != "" {
			attrs = append(attrs, "response", capText(t))
		}
	}
	level := slog.LevelDebug
	if ev.IsError {
		level = slog.LevelError
	}
	l.Log(context.Background(), level, "Event", attrs...)
}

// capText cuts s to maxDebugText characters.
func capText(s string) string {
	if utf8.RuneCountInString(s) <= maxDebugText {
		return s
	}
	return string([]rune(s)[:maxDebugText]) + "…"
}

// sink is the agent's sink with the log: each event is logged, then
// passed on; the bundled debug skill's activation turns the log on
// (builtin says whether the active skill of that name is the bundled one:
// a skill of the user's that shadows it does not).
func (d *debugLog) sink(next agent.Sink, id func() string, builtin func(name string) bool, notices func(string)) agent.Sink {
	return func(ev agent.Event) {
		if ev.Type == agent.EventSkillActivated && ev.Name == "debug" && builtin(ev.Name) && d.logger() == nil {
			if path, err := d.Enable(id()); err != nil {
				notices("debug log not started: " + err.Error())
			} else {
				notices("debug log on: " + path)
			}
		}
		d.event(ev)
		if next != nil {
			next(ev)
		}
	}
}

// Close closes the file.
func (d *debugLog) Close() { d.Disable() }

// teeHandler sends every record to the process's log and, while the debug
// log is on, to it at every level.
type teeHandler struct {
	next  slog.Handler
	debug *debugLog
}

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l) || h.debug.logger() != nil
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	if l := h.debug.logger(); l != nil {
		_ = l.Handler().Handle(ctx, r.Clone())
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{next: h.next.WithAttrs(as), debug: h.debug} // the debug log's lines keep no attrs of the process's loggers
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{next: h.next.WithGroup(name), debug: h.debug}
}

// activeBuiltin reports whether the active skill called name is a bundled one.
func activeBuiltin(set *skills.ActiveSet) func(name string) bool {
	return func(name string) bool {
		for _, a := range set.List() {
			if a.Skill.Name == name {
				return a.Skill.Source == skills.SourceBuiltin
			}
		}
		return false
	}
}

// Debug turns the session's debug log on or off (chat's /debug on|off)
// and says so.
func (s *Session) Debug(on bool) string {
	if !on {
		if path, was := s.debug.Disable(); was {
			return "Debug log off (" + path + ")."
		}
		return "The debug log is off."
	}
	path, err := s.debug.Enable(s.sessionID)
	if err != nil {
		return "Debug log not started: " + err.Error()
	}
	return "Debug log on: " + path + " (/debug off stops it)."
}

// notice prints a line of clawseed's own on the notices writer.
func (s *Session) notice(text string) {
	if s.notices != nil {
		fmt.Fprintln(s.notices, "clawseed: "+text)
	}
}
