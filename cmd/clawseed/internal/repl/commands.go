package repl

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/skills"
)

// builtinCommands are the slash commands, in /help order.
var builtinCommands = []struct{ name, args, help string }{
	{"/help", "", "show this help"},
	{"/skills", "[search TERMS]", "list skills: source, status, why hidden; diagnostics; or search them all"},
	{"/agents", "", "list the subagents the Agent tool runs, with their source"},
	{"/active", "", "list active skills"},
	{"/activate", "NAME [ARGS]", "activate a skill"},
	{"/deactivate", "NAME", "deactivate a skill"},
	{"/reload", "", "discover skills again now (paths gating re-checked)"},
	{"/memory", "", "list long-term memories and the folder holding them"},
	{"/trust", "", "trust this workspace: its project config and skills apply in full from the next start"},
	{"/mcp", "", "list MCP servers (status, tools, prompts, errors); run a server prompt as /mcp__SERVER__PROMPT ARGS"},
	{"/hooks", "", "list the hooks that run (settings files, config, active skills) and those ignored, with their sources"},
	{"/permissions", "", "list the permission rules (allow, deny, ask) with their sources, and those not used"},
	{"/status", "", "show the provider, model, session, workspace, autonomy, sandbox, context, tokens, cost and active skills"},
	{"/context", "", "show how the context window is used"},
	{"/init", "[FOCUS]", "survey the project and write (or improve) AGENTS.md, its instructions for agents"},
	{"/cost", "", "show this session's tokens, cache hit ratio and cost in US dollars"},
	{"/plan", "[on|off]", "plan mode: the model only reads, then presents a plan to approve (Shift+Tab switches too)"},
	{"/todos", "", "show the model's todo list"},
	{"/compact", "[FOCUS]", "summarise older messages now (optionally focused)"},
	{"/summary", "", "show the session summary, kept in the background; compaction uses it instead of a request"},
	{"/debug", "on|off", "write this session's debug log to .clawseed/debug/ID.log, or stop; /debug PROBLEM runs the debug skill"},
	{"/clear", "", "start a new session"},
	{"/resume", "[N|ID]", "list this workspace's saved sessions, or go on with one (its history, skills and model)"},
	{"/model", "[NAME [MODEL]]", "show or switch the model: a [providers.models] entry or provider, or a model id (a typo of a name is refused)"},
	{"/exit", "", "leave (also /quit, exit, quit, Ctrl-D)"},
	{"/quit", "", "leave"},
}

// Completions returns the words offered by tab completion: the commands and
// the user-invocable skills.
func (c *Chat) Completions() []string {
	var out []string
	for _, b := range builtinCommands {
		out = append(out, b.name)
	}
	for _, s := range c.invocable() {
		out = append(out, "/"+s.Name)
	}
	if c.MCP != nil {
		for _, p := range c.MCP.PromptCommands() {
			out = append(out, "/"+p)
		}
	}
	return out
}

// A MenuEntry is a command of the terminal UI's / menu.
type MenuEntry struct {
	// Name is "/name"; Args the argument hint ("" when it takes none);
	// Help one line on what it does.
	Name, Args, Help string
}

// MenuEntries lists the / menu: the built-in commands in /help order, then
// the user-invocable skills with their descriptions, then MCP prompts.
// Before the session is built (no Agent yet: the trust question) it lists
// the built-in commands only.
func (c *Chat) MenuEntries() []MenuEntry {
	var out []MenuEntry
	for _, b := range builtinCommands {
		out = append(out, MenuEntry{Name: b.name, Args: b.args, Help: b.help})
	}
	for _, s := range c.invocable() {
		out = append(out, MenuEntry{Name: "/" + s.Name, Args: s.ArgumentHint, Help: Preview(s.Description, 120)})
	}
	if c.MCP != nil {
		for _, p := range c.MCP.PromptCommands() {
			out = append(out, MenuEntry{Name: "/" + p, Args: "[ARGS]", Help: "MCP prompt"})
		}
	}
	return out
}

// invocable returns the skills the user can run as /NAME.
func (c *Chat) invocable() []*skills.Skill {
	if c.Agent == nil { // the session is not built yet
		return nil
	}
	set := c.Agent.Skills()
	if set == nil {
		return nil
	}
	var out []*skills.Skill
	for _, s := range set.Catalog().Skills {
		if s.UserInvocable && s.Status != skills.StatusHidden {
			out = append(out, s)
		}
	}
	return out
}

// command handles a slash command (a line [ParseSlash] takes for one). It
// returns the text to send to the model as a user message ("" for none) and
// whether to leave.
func (c *Chat) command(ctx context.Context, line string) (send string, quit bool) {
	name, args, _ := ParseSlash(line)
	switch name {
	case "exit", "quit":
		return "", true
	case "help":
		c.help()
	case "skills":
		if sub, terms, _ := strings.Cut(args, " "); sub == "search" {
			c.searchSkills(strings.TrimSpace(terms))
			return "", false
		}
		c.listSkills()
	case "agents":
		if c.Agents == nil {
			fmt.Fprintln(c.Out, "Subagents are not available in this session.")
		} else {
			c.Agents(c.Out)
		}
	case "active":
		c.listActive()
	case "activate":
		skill, skillArgs, _ := strings.Cut(args, " ")
		if skill == "" {
			fmt.Fprintln(c.Err, "usage: /activate NAME [ARGS]")
			return "", false
		}
		c.report(c.Agent.ActivateSkill(ctx, skill, strings.TrimSpace(skillArgs)))
	case "deactivate":
		if args == "" {
			fmt.Fprintln(c.Err, "usage: /deactivate NAME")
			return "", false
		}
		c.report(c.Agent.DeactivateSkill(args))
	case "reload":
		c.reload(ctx)
	case "memory":
		if c.Memory == nil {
			fmt.Fprintln(c.Out, "Memory is not available in this session.")
		} else {
			c.Memory(ctx, c.Out, c.Err)
		}
	case "trust":
		if c.Trust == nil {
			fmt.Fprintln(c.Out, "Workspace trust is not available in this session.")
		} else {
			fmt.Fprintln(c.Out, c.Trust())
		}
	case "mcp":
		if c.MCP == nil {
			fmt.Fprintln(c.Out, "No MCP servers are configured ([mcp.servers.NAME] in config.toml, or .mcp.json in the workspace).")
		} else {
			c.MCP.Show(ctx, c.Out)
		}
	case "hooks":
		if c.Hooks == nil {
			fmt.Fprintln(c.Out, "Hooks are not available in this session.")
		} else {
			c.Hooks(c.Out)
		}
	case "permissions":
		if c.Permissions == nil {
			fmt.Fprintln(c.Out, "Permission rules are not available in this session.")
		} else if err := c.Permissions(c.Out); err != nil {
			fmt.Fprintln(c.Err, "error: "+err.Error())
		}
	case "status":
		c.showStatus()
	case "context":
		c.showContext()
	case "init":
		return agent.InitPrompt(args), false
	case "cost":
		c.showCost()
	case "compact":
		c.compact(ctx, args)
	case "plan":
		c.plan(args)
	case "todos":
		c.showTodos()
	case "summary":
		if c.Summary == nil {
			fmt.Fprintln(c.Out, "No session summary in this session.")
		} else {
			c.Summary(c.Out)
		}
	case "debug":
		// /debug on|off is the log itself; anything else is the debug
		// skill's (which turns the log on as it activates).
		if c.Debug != nil && (args == "on" || args == "off") {
			fmt.Fprintln(c.Out, c.Debug(args == "on"))
			return "", false
		}
		return c.invoke(ctx, line, name, args), false
	case "clear":
		id := ""
		if c.NewSession != nil {
			id = c.NewSession(ctx)
		} else {
			c.Agent.Reset(ctx)
		}
		fmt.Fprintln(c.Out, "New session "+id+". History and active skills cleared.")
	case "resume":
		c.resume(ctx, args)
	case "model":
		c.model(args)
	default:
		if c.MCP != nil && strings.HasPrefix(name, "mcp__") {
			return c.mcpPrompt(ctx, name, args), false
		}
		return c.invoke(ctx, line, name, args), false
	}
	return "", false
}

// invoke runs /NAME [ARGS] for a user-invocable skill (§4.9): activate it with
// the args, then send the args (or a default instruction) as the user message.
//
// A NAME that is no command or skill (issue 20, item 18) is text for the
// model, sent as the line was typed ("/tmp is full, why?"), except when the
// line is the name alone or the name is close to a known one: "/hlep" or
// "/deplyo staging" is a mistyped command, answered with a suggestion and
// not sent. A hidden (gated) skill is not offered, but /NAME reaches the
// activation, which says why it is hidden.
func (c *Chat) invoke(ctx context.Context, line, name, args string) string {
	var skill *skills.Skill
	if set := c.Agent.Skills(); set != nil {
		skill = set.Catalog().Lookup(name)
		if skill == nil && c.MCP != nil {
			// It may be a skill of an MCP server that was still starting
			// when the catalog was made: catch up, as a request would.
			if _, err := c.Agent.ReloadSkills(ctx); err == nil {
				skill = set.Catalog().Lookup(name)
			}
		}
	}
	if skill == nil || !skill.UserInvocable {
		var known []string
		for _, w := range c.Completions() {
			known = append(known, strings.TrimPrefix(w, "/"))
		}
		hint := didYouMean(name, known)
		if skill == nil && args != "" && hint == "" {
			return line
		}
		fmt.Fprintf(c.Err, "Unknown command /%s.%s Type /help for commands and skills.\n", termtext.EscapeLine(name), hint)
		return ""
	}
	// A fork or shell skill runs here, so Ctrl-C must reach it.
	var send string
	var out skills.Outcome
	c.cancellable(ctx, func(ctx context.Context) { send, out = c.Agent.InvokeSkill(ctx, name, args) })
	if send == "" {
		c.report(out)
	}
	return send
}

// mcpPrompt expands an MCP server's prompt into the text sent to the model.
func (c *Chat) mcpPrompt(ctx context.Context, name, args string) string {
	var text string
	var err error
	c.cancellable(ctx, func(ctx context.Context) { text, err = c.MCP.Prompt(ctx, name, args) })
	if err != nil {
		fmt.Fprintln(c.Err, termtext.EscapeLine(err.Error()))
		return ""
	}
	return text
}

// reload rediscovers the skills; a change is shown by the renderer's
// skills_reloaded line.
func (c *Chat) reload(ctx context.Context) {
	info, err := c.Agent.ReloadSkills(ctx)
	switch {
	case err != nil:
		fmt.Fprintln(c.Err, "✗ reload failed: "+termtext.Escape(err.Error()))
	case info.Empty():
		fmt.Fprintln(c.Out, "skills unchanged")
	}
}

// report prints an activation outcome; its text names what the user typed.
func (c *Chat) report(out skills.Outcome) {
	text := termtext.Escape(out.Text)
	if out.IsError {
		fmt.Fprintln(c.Err, "✗ "+text)
		return
	}
	fmt.Fprintln(c.Out, text)
}

func (c *Chat) help() {
	fmt.Fprintln(c.Out, "Commands:")
	for _, b := range builtinCommands {
		fmt.Fprintf(c.Out, "  %-24s %s\n", strings.TrimSpace(b.name+" "+b.args), b.help)
	}
	if inv := c.invocable(); len(inv) > 0 {
		fmt.Fprintln(c.Out, "Skills (/NAME [ARGS] activates the skill and sends ARGS):")
		for _, s := range inv {
			fmt.Fprintf(c.Out, "  %-24s %s\n", strings.TrimSpace("/"+s.Name+" "+termtext.EscapeLine(s.ArgumentHint)), Preview(s.Description, 80))
		}
	}
	fmt.Fprintln(c.Out, `End a line with \ to continue it. Ctrl-C cancels a running turn.`)
}

// searchSkills runs /skills search TERMS over every skill the user could
// activate, listed in the index or not (§4.5).
func (c *Chat) searchSkills(terms string) {
	set := c.Agent.Skills()
	if set == nil {
		fmt.Fprintln(c.Out, "Skills are disabled ([skills].enabled = false).")
		return
	}
	if terms == "" {
		fmt.Fprintln(c.Err, "usage: /skills search TERMS")
		return
	}
	found := set.Search(terms, skills.MaxSearchResults, true)
	if len(found) == 0 {
		fmt.Fprintf(c.Out, "No skill matches '%s'.\n", termtext.EscapeLine(terms))
		return
	}
	for _, s := range found {
		fmt.Fprintf(c.Out, "  %s — %s\n", termtext.EscapeLine(s.Name), Preview(s.Description, 100))
	}
}

// listSkills prints the catalog and its diagnostics. Names, reasons, paths
// and messages come from files and are escaped.
func (c *Chat) listSkills() {
	set := c.Agent.Skills()
	if set == nil {
		fmt.Fprintln(c.Out, "Skills are disabled ([skills].enabled = false).")
		return
	}
	cat := set.Catalog()
	idx := c.Agent.Index()
	fmt.Fprintf(c.Out, "%d skills, %d listed in the index (level: %s).\n", len(cat.Skills), idx.Listed, idx.Level)
	if n := idx.Total - idx.Listed; n > 0 {
		fmt.Fprintf(c.Out, "The other %d are found with /skills search TERMS (the model searches with the Skill tool).\n", n)
	}
	for _, s := range cat.Skills {
		status := string(s.Status)
		if set.IsActive(s.Name) {
			status = string(skills.StatusActive)
		}
		line := fmt.Sprintf("  %-28s %-14s %-10s", termtext.EscapeLine(s.Name), s.Source, status)
		if s.Reason != "" {
			line += " " + termtext.EscapeLine(s.Reason)
		}
		fmt.Fprintln(c.Out, strings.TrimRight(line, " "))
	}
	if len(cat.Diagnostics) > 0 {
		fmt.Fprintln(c.Out, "Diagnostics:")
		for _, d := range cat.Diagnostics {
			fmt.Fprintf(c.Out, "  %s: %s: %s\n", d.Severity, termtext.EscapeLine(d.Path), termtext.EscapeLine(d.Message))
		}
	}
}

func (c *Chat) listActive() {
	set := c.Agent.Skills()
	var list []skills.Active
	if set != nil {
		list = set.List()
	}
	if len(list) == 0 {
		fmt.Fprintln(c.Out, "No active skills.")
		return
	}
	for i, a := range list {
		line := fmt.Sprintf("  %d. %s", i+1, termtext.EscapeLine(a.Skill.Name))
		if a.Args != "" {
			line += " " + termtext.EscapeLine(a.Args)
		}
		if set.ChangedOnDisk(a.Skill.Name) {
			line += " (changed on disk)"
		}
		fmt.Fprintln(c.Out, line)
	}
}

func (c *Chat) showContext() {
	r := c.Agent.ContextReport()
	rows := []struct {
		name string
		n    int
	}{
		{"base prompt", r.Base},
		{"instructions", r.Instructions},
		{"skill index", r.Index},
		{"active skills", r.Active},
		{"tool schemas", r.Tools},
		{"history", r.History},
	}
	fmt.Fprintf(c.Out, "Context (estimated tokens, window %d):\n", r.Window)
	for _, row := range rows {
		fmt.Fprintf(c.Out, "  %-14s %8d\n", row.name, row.n)
	}
	fmt.Fprintf(c.Out, "  %-14s %8d  (next request; compaction above %d)\n", "total", r.Total, r.CompactAt)
	fmt.Fprintf(c.Out, "  %-14s %8d\n", "free", r.Free)
	fmt.Fprintf(c.Out, "History: %d messages.\n", r.Messages)
	if r.SkillsTotal > 0 {
		fmt.Fprintf(c.Out, "Skill index: %d of %d skills listed (level: %s).\n", r.SkillsListed, r.SkillsTotal, r.IndexLevel)
		if n := r.SkillsTotal - r.SkillsListed; n > 0 {
			fmt.Fprintf(c.Out, "The other %d are reachable through the Skill tool's search action (you: /skills search TERMS).\n", n)
		}
	}
	if set := c.Agent.Skills(); set != nil {
		var names []string
		for _, a := range set.List() {
			names = append(names, a.Skill.Name)
		}
		sort.Strings(names)
		if len(names) > 0 {
			fmt.Fprintln(c.Out, "Active: "+strings.Join(names, ", "))
		}
	}
	u := c.Agent.Usage()
	fmt.Fprintf(c.Out, "Session usage: %d input, %d output, %d cached tokens.\n", u.InputTokens, u.OutputTokens, u.CachedInputTokens)
}

// compact runs /compact [FOCUS]. The summary request can be cancelled with
// Ctrl-C like a turn; the history is then left as it was.
func (c *Chat) compact(ctx context.Context, focus string) {
	var info agent.CompactionInfo
	var err error
	c.cancellable(ctx, func(ctx context.Context) {
		info, err = c.Agent.Compact(ctx, focus)
	})
	switch {
	case err != nil:
		fmt.Fprintln(c.Err, "✗ compaction cancelled: "+err.Error())
	case info.Replaced == 0:
		fmt.Fprintln(c.Out, "Nothing to compact.")
	}
	// A successful compaction was shown by the renderer's compaction event.
}

// model shows or switches the model (/model [NAME [MODEL]]).
func (c *Chat) model(args string) {
	if c.SwitchModel == nil {
		if args == "" {
			fmt.Fprintln(c.Out, "model: "+termtext.EscapeLine(c.Agent.ModelName()))
			return
		}
		c.Agent.SetModel(args)
		fmt.Fprintln(c.Out, "model set to "+termtext.EscapeLine(args))
		return
	}
	text, err := c.SwitchModel(args)
	if err != nil {
		fmt.Fprintln(c.Err, "✗ "+termtext.Escape(err.Error()))
		return
	}
	fmt.Fprintln(c.Out, termtext.Escape(text))
}
