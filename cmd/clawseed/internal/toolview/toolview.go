// Package toolview says how a tool call reads at the terminal: its
// one-line header ("Read README.md", "Shell go test ./...", "Edit
// main.go"), its result cut to a few lines, and the diff a file-editing
// call makes, rendered with line numbers and colour.
//
// Everything it returns is escaped (internal/termtext): arguments and
// results come from the model, files and servers. It does no I/O: a
// file's current content, for a real diff, is the caller's to read
// (through the session's confined reader) and pass in.
package toolview

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
)

// A verb makes the header of one tool's calls from their arguments, ""
// when the arguments lack what it needs (the generic key=value header is
// shown then).
type verb struct {
	tool   string
	header func(a args) string
}

// verbs are the headers of the built-in tools (runtime/tools), the tools
// the agent handles itself (Skill, Agent) and MCP's own (runtime/mcp),
// sorted by tool name: the one table of them. File paths are read from
// "path" or, in Claude Code's shape, "file_path" (hooks' tool_input).
var verbs = [...]verb{
	{"Agent", func(a args) string {
		task := a.text("description")
		if task == "" {
			task = a.text("prompt")
		}
		return join("Agent", a.text("subagent_type")) + prefixed(": ", task)
	}},
	{"Skill", func(a args) string {
		switch a.str("action") {
		case "search":
			return "Skill search" + quoted(a.text("query", "skill"))
		case "deactivate":
			return nonEmpty(a.str("skill"), "Skill "+a.str("skill")+" (deactivate)")
		}
		return nonEmpty(a.str("skill"), "Skill "+a.str("skill")+prefixed(": ", a.text("args")))
	}},
	{"backup", func(a args) string {
		h := join("Backup", a.str("action"), a.str("name"))
		if a.flag("confirm") {
			h += " (confirmed)"
		}
		return h
	}},
	{"calculator", func(a args) string { return nonEmpty(a.str("expression"), "Calculate "+a.str("expression")) }},
	{"content_search", func(a args) string {
		var opts []string
		if g := a.str("include", "glob"); g != "" {
			opts = append(opts, g)
		}
		if m := a.str("output_mode"); m != "" && m != "content" {
			opts = append(opts, m)
		}
		if sensitive := true; json.Unmarshal(a.vals["case_sensitive"], &sensitive) == nil && !sensitive {
			opts = append(opts, "ignore case")
		}
		return nonEmpty(a.str("pattern"), "Search"+quoted(a.str("pattern"))+prefixed(" in ", a.str("path"))+parens(opts...))
	}},
	{"cron_add", func(a args) string {
		run := a.str("command")
		if run == "" {
			run = strings.TrimSpace(quoted(a.text("prompt")))
		}
		return join("Cron add", a.str("name")) + parens(a.str("schedule")) + prefixed(": ", run)
	}},
	{"cron_list", func(args) string { return "Cron list" }},
	{"cron_remove", func(a args) string { return join("Cron remove", a.str("id")) }},
	{"cron_run", func(a args) string { return join("Cron run", a.str("id")) }},
	{"cron_runs", func(a args) string { return join("Cron runs", a.str("id")) }},
	{"cron_update", func(a args) string {
		return join("Cron update", a.str("id")) + prefixed(": ", a.keyValues("id"))
	}},
	{"exit_plan_mode", func(a args) string { return "Plan" + prefixed(": ", planTitle(a.str("plan"))) }},
	{"file_edit", func(a args) string {
		h := "Edit " + a.str("path", "file_path")
		if a.flag("replace_all") {
			h += " (replace all)"
		}
		return nonEmpty(a.str("path", "file_path"), h)
	}},
	{"file_read", func(a args) string {
		return nonEmpty(a.str("path", "file_path"), "Read "+a.str("path", "file_path")+readRange(a))
	}},
	{"file_write", func(a args) string { return nonEmpty(a.str("path", "file_path"), "Write "+a.str("path", "file_path")) }},
	{"git", func(a args) string {
		words := []string{"Git", a.str("action")}
		if a.flag("cached") {
			words = append(words, "--cached")
		}
		words = append(words, a.strs("options")...)
		words = append(words, a.str("rev"), a.str("branch"))
		words = append(words, a.strs("paths")...)
		h := join(words...)
		if l := a.str("lines"); l != "" {
			h += " (lines " + l + ")"
		}
		return nonEmpty(a.str("action"), h+quoted(firstLine(a.str("message"))))
	}},
	{"glob_search", func(a args) string {
		return nonEmpty(a.str("pattern"), "Glob "+a.str("pattern")+prefixed(" in ", a.str("path")))
	}},
	{"http_request", func(a args) string {
		method := strings.ToUpper(a.str("method"))
		if method == "" {
			method = "GET"
		}
		return nonEmpty(a.str("url"), "HTTP "+method+" "+a.str("url"))
	}},
	{"knowledge", func(a args) string {
		switch action := a.str("action"); action {
		case "search":
			return "Knowledge search" + quoted(a.text("query"))
		case "get":
			return join("Knowledge get", a.str("id"))
		case "capture":
			return join("Knowledge capture", a.text("title")) + parens(a.str("type"))
		case "relate":
			return join("Knowledge relate", a.str("from"), "→", a.str("to")) + parens(a.str("relation"))
		default:
			return join("Knowledge", action)
		}
	}},
	{"llm_task", func(a args) string {
		return nonEmpty(a.text("prompt"), "LLM task"+parens(a.str("model"))+": "+a.text("prompt"))
	}},
	{"mcp_resource_read", func(a args) string {
		if a.str("uri") == "" {
			return nonEmpty(a.str("server"), "MCP resources of "+a.str("server"))
		}
		return join("MCP read", a.str("server"), a.str("uri"))
	}},
	{"memory_export", func(a args) string { return "Export memory" + parens(a.str("format")) }},
	{"memory_forget", func(a args) string { return nonEmpty(a.str("name"), "Forget "+a.str("name")) }},
	{"memory_purge", func(a args) string { return "Purge memory" + parens(a.str("scope")) }},
	{"memory_recall", func(a args) string { return nonEmpty(a.text("query"), "Recall"+quoted(a.text("query"))) }},
	{"memory_store", func(a args) string {
		if name := a.str("name"); name != "" {
			return "Remember " + name + parens(a.str("type"))
		}
		// The daily-log memory_store takes the note alone.
		return nonEmpty(a.text("content"), "Remember"+quoted(a.text("content")))
	}},
	{"pdf_read", func(a args) string {
		return nonEmpty(a.str("path", "file_path"), "Read PDF "+a.str("path", "file_path")+prefixed(" (pages ", a.str("pages"))+closeIf(a.str("pages")))
	}},
	{"shell", func(a args) string {
		cmd := strings.TrimSpace(a.str("command"))
		// Where the command runs comes before it, so that a cut never
		// hides it.
		switch a.str("sandbox") {
		case "off":
			cmd = "[no sandbox] " + cmd
		case "network":
			cmd = "[network] " + cmd
		}
		return nonEmpty(a.str("command"), "Shell "+cmd)
	}},
	{"skill_create", func(a args) string { return nonEmpty(a.str("name"), "Create skill "+a.str("name")) }},
	{"todo_write", func(a args) string { return todoHeader(a.vals["todos"]) }},
	{"tool_search", func(a args) string { return nonEmpty(a.text("query"), "Tool search"+quoted(a.text("query"))) }},
	{"web_fetch", func(a args) string { return nonEmpty(a.str("url"), "Fetch "+a.str("url")) }},
	{"web_search", func(a args) string { return nonEmpty(a.text("query"), "Web search"+quoted(a.text("query"))) }},
}

// lookupVerb returns the verb of tool, after Claude Code's names (Bash is
// shell: permissions.ClaudeTool, the one table of them; Task is Agent's
// old name).
func lookupVerb(tool string) (verb, bool) {
	if mapped, ok := permissions.ClaudeTool(tool); ok {
		tool = mapped
	} else if tool == "Task" {
		tool = "Agent"
	}
	i := sort.Search(len(verbs), func(i int) bool { return verbs[i].tool >= tool })
	if i < len(verbs) && verbs[i].tool == tool {
		return verbs[i], true
	}
	return verb{}, false
}

// Header is the readable one-line header of a call of tool with args,
// such as "Read README.md", "Shell go test ./...", "Search \"TODO\" in
// ./src", "Agent explore: find the config loader"; an MCP tool
// (mcp__server__tool) reads "server · tool  key=value …", any other tool
// its name and its arguments as key=value pairs. Strings are decoded
// (\u0026 shows as &), control characters escaped (termtext.EscapeLine:
// the header is one line), and the header cut to width cells with an
// ellipsis (width <= 0: not cut).
func Header(tool string, args json.RawMessage, width int) string {
	return cut(termtext.EscapeLine(header(tool, args)), width)
}

func header(tool string, raw json.RawMessage) string {
	a, ok := parseArgs(raw)
	if !ok {
		// Not an object: the tool refuses it; show what was sent.
		return join(tool, strings.Join(strings.Fields(valueText(raw)), " "))
	}
	if v, found := lookupVerb(tool); found {
		if h := v.header(a); h != "" {
			return strings.TrimSpace(h)
		}
	}
	if server, name, isMCP := permissions.SplitMCPName(tool); isMCP {
		return server + " · " + name + prefixed("  ", a.keyValues())
	}
	return join(tool, a.keyValues())
}

// readRange is file_read's " (lines a-b)" when the call reads part of
// the file.
func readRange(a args) string {
	var offset, limit int
	json.Unmarshal(a.vals["offset"], &offset)
	json.Unmarshal(a.vals["limit"], &limit)
	switch {
	case offset > 0 && limit > 0:
		return fmt.Sprintf(" (lines %d-%d)", offset, offset+limit-1)
	case offset > 0:
		return fmt.Sprintf(" (from line %d)", offset)
	case limit > 0:
		return fmt.Sprintf(" (lines 1-%d)", limit)
	}
	return ""
}

// join joins the non-empty words with spaces.
func join(words ...string) string {
	var b strings.Builder
	for _, w := range words {
		if w == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// nonEmpty returns h when key is not empty: the header needs it.
func nonEmpty(key, h string) string {
	if strings.TrimSpace(key) == "" {
		return ""
	}
	return h
}

// prefixed returns prefix+s, or "" when s is.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func closeIf(s string) string {
	if s == "" {
		return ""
	}
	return ")"
}

// quoted is ` "s"`, or "" when s is.
func quoted(s string) string { return prefixed(" ", nonEmpty(s, `"`+s+`"`)) }

// parens is " (a, b)" of the non-empty items, or "".
func parens(items ...string) string {
	var kept []string
	for _, it := range items {
		if it != "" {
			kept = append(kept, it)
		}
	}
	return prefixed(" (", strings.Join(kept, ", ")) + closeIf(strings.Join(kept, ""))
}

func firstLine(s string) string {
	first, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if more {
		return strings.TrimSpace(first) + " …"
	}
	return first
}

// planTitle is a plan's first line without its Markdown heading marks.
func planTitle(plan string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(plan), "\n")
	return strings.TrimSpace(strings.TrimLeft(first, "# "))
}

// todoHeader is a todo_write call's header: how many items, how many done.
func todoHeader(raw json.RawMessage) string {
	var items []struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return "Update todos"
	}
	if len(items) == 0 {
		return "Clear todos"
	}
	done := 0
	for _, t := range items {
		if t.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("Update todos (%d/%d done)", done, len(items))
}
