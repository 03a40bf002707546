package skills

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Dynamic context (§4.11): Claude Code's `` !`cmd` `` and ```` ```! ```` blocks
// in a skill body are replaced by the command's standard output when the
// skill is activated.

// The values of [ActiveConfig.DynamicContext] ([skills].dynamic_context).
const (
	DynamicOff     = "off"
	DynamicTrusted = "trusted"
	DynamicAll     = "all"
)

// DynamicTimeout bounds each dynamic-context command.
const DynamicTimeout = 30 * time.Second

// A SegmentKind says what a [Segment] of a body is.
type SegmentKind uint8

// The segment kinds.
const (
	// SegmentText is ordinary body text.
	SegmentText SegmentKind = iota
	// SegmentInline is `` !`cmd` ``: a "!" at the start of a line or after a
	// blank, then a command in single backticks on the same line.
	SegmentInline
	// SegmentBlock is a fenced block whose opening line is ```` ```! ````
	// (three or more backticks, then "!", then only blanks), up to the
	// closing fence; its lines are one shell script.
	SegmentBlock
)

// A Segment is one piece of a body as split by [ParseDynamic].
type Segment struct {
	Kind SegmentKind
	// Text is the piece of the body as written; the Texts of all segments,
	// joined, are the body. A block's Text ends before the closing fence's
	// line break, which belongs to the next segment.
	Text string
	// Command is the script to run ("" for text).
	Command string
}

// ParseDynamic splits body into text and dynamic-context commands, in order.
// Inline commands are not recognised inside ordinary fenced code blocks (a
// skill explaining the syntax in an example must not run it); a ```! block
// without a closing fence, and a blank command, are text.
func ParseDynamic(body string) []Segment {
	var (
		segs  []Segment
		text  strings.Builder
		fence string // the opening fence of the ordinary code block we are in
	)
	flush := func() {
		if text.Len() > 0 {
			segs = append(segs, Segment{Kind: SegmentText, Text: text.String()})
			text.Reset()
		}
	}
	for pos := 0; pos < len(body); {
		line := body[pos:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		switch {
		case fence != "":
			if closesFence(line, fence) {
				fence = ""
			}
		case dynamicFence(line) != "":
			if n, script, ok := dynamicBlock(body[pos:], dynamicFence(line)); ok {
				flush()
				segs = append(segs, Segment{Kind: SegmentBlock, Text: body[pos : pos+n], Command: script})
				pos += n
				continue
			}
		case openFence(line) != "":
			fence = openFence(line)
		default:
			segs = splitInline(segs, &text, line)
			pos += len(line)
			continue
		}
		text.WriteString(line)
		pos += len(line)
	}
	flush()
	return segs
}

// splitInline appends line's text to text and its inline commands to segs.
func splitInline(segs []Segment, text *strings.Builder, line string) []Segment {
	for {
		i, j := inlineCommand(line)
		if i < 0 {
			text.WriteString(line)
			return segs
		}
		text.WriteString(line[:i])
		if text.Len() > 0 {
			segs = append(segs, Segment{Kind: SegmentText, Text: text.String()})
			text.Reset()
		}
		segs = append(segs, Segment{Kind: SegmentInline, Text: line[i:j], Command: line[i+2 : j-1]})
		line = line[j:]
	}
}

// inlineCommand finds the first inline command (!`cmd`) in line and returns its start and
// end, or -1, -1.
func inlineCommand(line string) (int, int) {
	for from := 0; ; {
		k := strings.Index(line[from:], "!`")
		if k < 0 {
			return -1, -1
		}
		i := from + k
		from = i + 1
		if i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
			continue
		}
		end := strings.IndexAny(line[i+2:], "`\n")
		if end < 0 || line[i+2+end] != '`' || strings.TrimSpace(line[i+2:i+2+end]) == "" {
			continue
		}
		return i, i + 2 + end + 1
	}
}

// fenceIndent strips up to three leading spaces (Markdown's limit for a
// fence), or reports that line is indented further.
func fenceIndent(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	if n > 3 {
		return "", false
	}
	return line[n:], true
}

// fenceRun returns the run of three or more c that s starts with, or "".
func fenceRun(s string, c byte) string {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 {
		return ""
	}
	return s[:n]
}

// dynamicFence returns the backtick run of a ```! opening line, or "".
func dynamicFence(line string) string {
	s, ok := fenceIndent(line)
	if !ok {
		return ""
	}
	run := fenceRun(s, '`')
	if run == "" || !strings.HasPrefix(s[len(run):], "!") || strings.TrimSpace(s[len(run)+1:]) != "" {
		return ""
	}
	return run
}

// openFence returns the fence of an ordinary code block's opening line, or "".
func openFence(line string) string {
	s, ok := fenceIndent(line)
	if !ok {
		return ""
	}
	if run := fenceRun(s, '`'); run != "" && !strings.Contains(s[len(run):], "`") {
		return run
	}
	return fenceRun(s, '~')
}

// closesFence reports whether line closes a block opened with fence: the same
// character, at least as many, then only blanks.
func closesFence(line, fence string) bool {
	s, ok := fenceIndent(line)
	if !ok {
		return false
	}
	run := fenceRun(s, fence[0])
	return len(run) >= len(fence) && strings.TrimSpace(s[len(run):]) == ""
}

// dynamicBlock reads a ```! block at the start of rest: it returns the
// length of its text (up to the closing fence's line break) and its script.
func dynamicBlock(rest, fence string) (int, string, bool) {
	first := strings.IndexByte(rest, '\n')
	if first < 0 {
		return 0, "", false
	}
	var script strings.Builder
	for pos := first + 1; pos < len(rest); {
		line := rest[pos:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		if closesFence(line, fence) {
			cmd := strings.TrimRight(script.String(), "\r\n")
			if strings.TrimSpace(cmd) == "" {
				return 0, "", false
			}
			return pos + len(strings.TrimRight(line, "\r\n")), cmd, true
		}
		script.WriteString(line)
		pos += len(line)
	}
	return 0, "", false
}

// hasDynamic reports whether segs hold a command.
// dynamicCommands returns the commands of body's dynamic context
// ([Skill.Dynamic]); nil when it has none.
func dynamicCommands(body string) []string {
	if !strings.Contains(body, "!") {
		return nil // no command without one
	}
	var cmds []string
	for _, seg := range ParseDynamic(body) {
		if seg.Kind != SegmentText {
			// A copy: the command is a piece of the body, which a
			// catalog does not keep.
			cmds = append(cmds, strings.Clone(seg.Command))
		}
	}
	return cmds
}

func hasDynamic(segs []Segment) bool {
	for _, s := range segs {
		if s.Kind != SegmentText {
			return true
		}
	}
	return false
}

// noCommandsKey marks a context under which no dynamic-context command runs.
type noCommandsKey struct{}

// WithoutCommands returns ctx under which an activation (or a refresh, a
// restore) runs no dynamic-context command, whatever [DynamicAllowed]
// says: the text stays as written, as for a refused skill. The agent
// uses it when its policy refuses commands (read_only autonomy, plan
// mode), so that activating a skill, which is a read, runs nothing.
func WithoutCommands(ctx context.Context) context.Context {
	return context.WithValue(ctx, noCommandsKey{}, true)
}

// commandsRefused reports whether ctx is [WithoutCommands]'s.
func commandsRefused(ctx context.Context) bool {
	refused, _ := ctx.Value(noCommandsKey{}).(bool)
	return refused
}

// DynamicAllowed reports whether [skills].dynamic_context = mode lets s run
// dynamic-context commands, and if not, why (a sentence fragment such as
// `[skills].dynamic_context = "trusted" does not cover extra_roots`).
// "trusted" covers the project and user roots and the built-in skills; an
// unknown or empty mode counts as "off". In an untrusted workspace
// (§9.1) no project skill runs commands, whatever the mode: opening a
// cloned repository must not run what it ships.
func DynamicAllowed(mode string, untrustedWorkspace bool, s *Skill) (bool, string) {
	if s.Source == SourceMCP || s.Remote != nil {
		// Whatever the mode: a server's skill is untrusted input, and
		// runs nothing on this machine (AddRemote).
		return false, "a skill served by an MCP server never runs commands"
	}
	if untrustedWorkspace && s.Source.Project() {
		return false, "the workspace is not trusted (clawseed trust)"
	}
	switch mode {
	case DynamicAll:
		return true, ""
	case DynamicTrusted:
		if s.Source.Trusted() || s.Source == SourceBuiltin {
			return true, ""
		}
		what := string(s.Source) + " skills"
		if s.Source == SourceExtra {
			what = "extra_roots"
		}
		return false, fmt.Sprintf("[skills].dynamic_context = %q does not cover %s", mode, what)
	}
	if mode == "" {
		mode = DynamicOff
	}
	return false, fmt.Sprintf("[skills].dynamic_context = %q", mode)
}

// DynamicContextNote describes what happens to s's dynamic-context commands
// under mode, for `clawseed skills show`: "" when its body has none.
func DynamicContextNote(mode string, untrustedWorkspace bool, s *Skill) string {
	n := 0
	for _, seg := range ParseDynamic(s.Body) {
		if seg.Kind != SegmentText {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	if ok, why := DynamicAllowed(mode, untrustedWorkspace, s); !ok {
		return "not run (" + why + "); the command text stays in the body as written"
	}
	if n == 1 {
		return "1 command, run in the workspace at activation"
	}
	return fmt.Sprintf("%d commands, run in the workspace at activation", n)
}

// CommandEnv returns the variables the commands of s (a `shell:` skill, its
// dynamic context) get on top of the scrubbed environment: $ARGUMENTS, the
// CLAWSEED_ variables of §4.9 and their Claude Code aliases, and the plugin
// root for a plugin's skill. The arguments reach the command only this way,
// never inside its text.
func CommandEnv(s *Skill, workspace, sessionID, args string) []string {
	env := []string{
		"ARGUMENTS=" + args,
		VarSkillDir + "=" + s.Dir,
		VarWorkspace + "=" + workspace,
		VarSessionID + "=" + sessionID,
		"CLAUDE_SKILL_DIR=" + s.Dir,
		"CLAUDE_PROJECT_DIR=" + workspace,
		"CLAUDE_SESSION_ID=" + sessionID,
	}
	if s.PluginDir != "" {
		env = append(env, VarPluginRoot+"="+s.PluginDir, "CLAUDE_PLUGIN_ROOT="+s.PluginDir)
	}
	return env
}

// runDynamic runs the commands of segs in order and returns their outputs
// (indexed like segs; "" for text). The first failure aborts: its error
// names the command and carries its stderr.
func (c *ActiveConfig) runDynamic(ctx context.Context, s *Skill, segs []Segment, args string) ([]string, error) {
	out := make([]string, len(segs))
	env := CommandEnv(s, c.Workspace, c.SessionID, args)
	for i, seg := range segs {
		if seg.Kind == SegmentText {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, DynamicTimeout)
		stdout, stderr, err := c.RunCommand(cctx, c.Workspace, seg.Command, env)
		cancel()
		if err != nil {
			msg := fmt.Sprintf("dynamic context command `%s` failed: %v", oneLine(seg.Command), err)
			if e := strings.TrimSpace(stderr); e != "" {
				msg += "\n" + e
			}
			return nil, fmt.Errorf("%s", msg)
		}
		out[i] = strings.TrimRight(stdout, "\r\n")
	}
	return out, nil
}

// oneLine shows a block's script on one line in an error message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
