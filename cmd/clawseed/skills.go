package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/skills"
)

// skillsOptions are the flags shared by the `clawseed skills` subcommands.
type skillsOptions struct {
	global  *globalOptions
	io      *IOStreams
	JSON    bool
	Prompt  bool
	NoCache bool
	Force   bool // skills new: replace an existing skill's files
}

// discover runs discovery for a skills subcommand, through the parse cache
// unless --no-cache, with the skills of the MCP servers this workspace
// lets start (started for it, waited for at most their start-up timeout).
func (o *skillsOptions) discover(ctx context.Context, cfg *config.Config) *skills.Catalog {
	log := newLogger(o.global, o.io.Err)
	var cat *skills.Catalog
	if o.NoCache {
		cat = app.DiscoverUncached(ctx, cfg)
	} else {
		cat = app.Discover(ctx, cfg, o.global.proc, log)
	}
	app.AddMCPSkills(ctx, cfg, cat, o.global.proc, log)
	return cat
}

func newSkillsCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &skillsOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List, inspect, validate and create skills",
	}
	cmd.PersistentFlags().BoolVar(&opts.JSON, "json", false, "print JSON")
	list := &cobra.Command{
		Use:   "list",
		Short: "List skills with their source, status and size",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsListRun(cmd.Context(), opts)
		},
	}
	list.Flags().BoolVar(&opts.Prompt, "prompt", false, "print exactly the ## Available Skills section the model receives")
	doctor := &cobra.Command{
		Use:   "doctor",
		Short: "Print every skill diagnostic",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsDoctorRun(cmd.Context(), opts)
		},
	}
	doctor.Flags().BoolVar(&opts.NoCache, "no-cache", false, "read and parse every skill, bypassing the discovery cache in $CLAWSEED_HOME/cache")
	newCmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Scaffold SKILL.md and manifest.toml in <workspace>/.clawseed/skills/NAME",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsNewRun(cmd.Context(), opts, args[0])
		},
	}
	newCmd.Flags().BoolVar(&opts.Force, "force", false, "replace the SKILL.md and manifest.toml of an existing skill of that name with the template (its other files are kept)")
	cmd.AddCommand(
		list,
		&cobra.Command{
			Use:   "show NAME",
			Short: "Show a skill's merged metadata, rendered body and origin",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return skillsShowRun(cmd.Context(), opts, args[0])
			},
		},
		&cobra.Command{
			Use:   "validate [DIR...]",
			Short: "Validate skill directories (default: every discovered skill); exit 1 on any error",
			RunE: func(cmd *cobra.Command, args []string) error {
				return skillsValidateRun(cmd.Context(), opts, args)
			},
		},
		doctor,
		newSkillsSearchCmd(opts),
		newSkillsEvalCmd(opts),
		newCmd,
		newSkillsScanCmd(opts),
		newSkillsAddCmd(opts), newSkillsUpdateCmd(opts), newSkillsRemoveCmd(opts), newSkillsVerifyCmd(opts),
	)
	return cmd
}

// skillJSON is one entry of `skills list --json`.
type skillJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Path        string   `json:"path"`
	Status      string   `json:"status"`
	Reason      string   `json:"reason"`
	Triggers    []string `json:"triggers"`
	Permissions []string `json:"permissions"`
	Tokens      int      `json:"tokens"`
}

type listJSON struct {
	Skills      []skillJSON         `json:"skills"`
	Diagnostics []skills.Diagnostic `json:"diagnostics"`
	// Plugins are the plugins installed with Claude Code for this
	// workspace, enabled or not, and why.
	Plugins []app.PluginStatus `json:"plugins"`
}

// skillPath is where a skill comes from: its directory, a command's file,
// builtin:NAME, or mcp:SERVER:URI for a skill an MCP server serves.
func skillPath(s *skills.Skill) string {
	switch {
	case s.Remote != nil:
		return skills.RemotePath(s.Remote.Server, s.Remote.URI)
	case s.Command && s.SkillPath != "":
		return s.SkillPath
	case s.Dir == "":
		return "builtin:" + s.Name
	}
	return s.Dir
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func skillsListRun(ctx context.Context, opts *skillsOptions) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	if err := cfg.Use("skills", "workspace_dir"); err != nil {
		return err
	}
	cat := opts.discover(ctx, cfg)
	if opts.Prompt {
		idx := skills.RenderIndex(cat.Skills, app.IndexBudget(cfg))
		if idx.Text != "" {
			// A no-op: the index never holds control characters.
			fmt.Fprintln(opts.io.Out, termtext.Escape(idx.Text))
		}
		fmt.Fprintf(opts.io.Err, "%d characters, ~%d tokens; %d of %d skills listed (level: %s)\n",
			utf8.RuneCountInString(idx.Text), agent.EstimateTokens(idx.Text), idx.Listed, idx.Total, idx.Level)
		if n := idx.Total - idx.Listed; n > 0 {
			fmt.Fprintf(opts.io.Err, "the other %d are reachable through the Skill tool's search action (clawseed skills search TERMS)\n", n)
		}
		return nil
	}
	plugins := app.ClaudePlugins(cfg)
	// One buffered writer, and each skill written as it is reached: the
	// whole output (6 MB of JSON for 10,000 skills) is never held at once.
	w := bufio.NewWriterSize(opts.io.Out, 64<<10)
	if opts.JSON {
		err = writeListJSON(w, cat, plugins)
	} else {
		writeListText(w, cat, plugins)
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if n := len(cat.Diagnostics); n > 0 {
		fmt.Fprintf(opts.io.Err, "%d diagnostics; run `clawseed skills doctor` to see them.\n", n)
	}
	return nil
}

// writeListText writes the table of `skills list`, then the plugins. It
// is what a tabwriter.Writer (minimum width 0, padding 2, spaces) makes
// of the rows, written a row at a time: the tab writer keeps every cell
// until it is flushed, so the column widths are measured first instead.
func writeListText(w *bufio.Writer, cat *skills.Catalog, plugins []app.PluginStatus) {
	if len(cat.Skills) == 0 {
		fmt.Fprintln(w, "No skills found. Create one with: clawseed skills new NAME")
	} else {
		header := [...]string{"NAME", "SOURCE", "STATUS", "TOKENS", "REASON"}
		var widths [len(header) - 1]int // the last column is not padded
		for i := range widths {
			widths[i] = utf8.RuneCountInString(header[i])
		}
		var cells [len(header)]string
		row := func(s *skills.Skill) []string {
			cells = [...]string{termtext.EscapeLine(s.Name), string(s.Source), string(s.Status),
				strconv.Itoa(agent.EstimateTokensOf(s.BodySize)), termtext.EscapeLine(s.Reason)}
			return cells[:]
		}
		for _, s := range cat.Skills {
			for i, c := range row(s)[:len(widths)] {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
		writeRow := func(cells []string) {
			for i, c := range cells[:len(widths)] {
				w.WriteString(c)
				for range widths[i] + listPadding - utf8.RuneCountInString(c) {
					w.WriteByte(' ')
				}
			}
			w.WriteString(cells[len(widths)])
			w.WriteByte('\n')
		}
		writeRow(header[:])
		for _, s := range cat.Skills {
			writeRow(row(s))
		}
	}
	printPlugins(w, plugins)
}

// listPadding is the space between the columns of `skills list`.
const listPadding = 2

// writeListJSON writes what writeJSON writes for the listJSON of cat with
// plugins, writing the skills and the diagnostics one at a time: the JSON
// encoder holds its whole output, twice (compact, then indented), before
// writing it.
func writeListJSON(w *bufio.Writer, cat *skills.Catalog, plugins []app.PluginStatus) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The elements are two levels down: under the object, in an array.
	enc.SetIndent("    ", "  ")
	elem := func(v any) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		w.WriteString("    ")
		w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return nil
	}
	array := func(n int, at func(i int) any) error {
		if n == 0 {
			w.WriteString("[]")
			return nil
		}
		w.WriteString("[\n")
		for i := range n {
			if err := elem(at(i)); err != nil {
				return err
			}
			if i < n-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString("  ]")
		return nil
	}
	// The keys and order of listJSON.
	w.WriteString("{\n  \"skills\": ")
	if err := array(len(cat.Skills), func(i int) any { return listEntry(cat.Skills[i]) }); err != nil {
		return err
	}
	w.WriteString(",\n  \"diagnostics\": ")
	if err := array(len(cat.Diagnostics), func(i int) any { return cat.Diagnostics[i] }); err != nil {
		return err
	}
	w.WriteString(",\n  \"plugins\": ")
	enc.SetIndent("  ", "  ")
	buf.Reset()
	if err := enc.Encode(plugins); err != nil {
		return err
	}
	w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	w.WriteString("\n}\n")
	return nil
}

// printPlugins lists the plugins installed with Claude Code after the
// skills: key, on or off, what decided, folder.
func printPlugins(w io.Writer, plugins []app.PluginStatus) {
	if len(plugins) == 0 {
		return
	}
	fmt.Fprintln(w, "\nClaude Code plugins:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLUGIN\tSTATE\tWHY\tPATH")
	for _, p := range plugins {
		state := "disabled"
		if p.Enabled {
			state = "enabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.EscapeLine(p.Key), state, termtext.EscapeLine(p.Why), termtext.EscapeLine(p.Path))
	}
	tw.Flush()
}

// listOf is what `skills list --json` prints for cat (with the plugins
// [writeListJSON] is given): every skill, the commands and plugin skills
// included, with its source and path.
func listOf(cat *skills.Catalog) listJSON {
	out := listJSON{Skills: []skillJSON{}, Diagnostics: cat.Diagnostics, Plugins: []app.PluginStatus{}}
	if out.Diagnostics == nil {
		out.Diagnostics = []skills.Diagnostic{}
	}
	for _, s := range cat.Skills {
		out.Skills = append(out.Skills, listEntry(s))
	}
	return out
}

// listEntry is the entry of s in `skills list --json`.
func listEntry(s *skills.Skill) skillJSON {
	return skillJSON{
		Name: s.Name, Description: s.Description, Source: string(s.Source), Path: skillPath(s),
		Status: string(s.Status), Reason: s.Reason, Triggers: orEmpty(s.Triggers),
		Permissions: orEmpty(s.Permissions), Tokens: agent.EstimateTokensOf(s.BodySize),
	}
}

type showJSON struct {
	skillJSON
	Root         string   `json:"root"`
	Manifest     string   `json:"manifest"`
	SkillFile    string   `json:"skill_file"`
	Version      string   `json:"version"`
	AllowedTools []string `json:"allowed_tools"`
	Arguments    []string `json:"arguments"`
	ArgumentHint string   `json:"argument_hint"`
	// Agent is a fork skill's subagent (omitted when none).
	Agent     string `json:"agent,omitempty"`
	UserOnly  bool   `json:"disable_model_invocation"`
	Invocable bool   `json:"user_invocable"`
	Body      string `json:"body"`
	// DynamicContext says whether the body's !`cmd` lines run (omitted
	// when it has none).
	DynamicContext string `json:"dynamic_context,omitempty"`
}

func skillsShowRun(ctx context.Context, opts *skillsOptions, name string) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	cat := opts.discover(ctx, cfg)
	s := cat.Lookup(name)
	if s == nil {
		return fmt.Errorf("skill %q not found (see clawseed skills list)", name)
	}
	// A catalog keeps no bodies: read the skill as activation does.
	s, err = skills.Reread(s, int64(cfg.Skills.MaxSkillFileBytes))
	if err != nil {
		return fmt.Errorf("skill %q: %v", name, err)
	}
	out := showJSON{
		skillJSON: skillJSON{Name: s.Name, Description: s.Description, Source: string(s.Source), Path: skillPath(s),
			Status: string(s.Status), Reason: s.Reason, Triggers: orEmpty(s.Triggers), Permissions: orEmpty(s.Permissions),
			Tokens: agent.EstimateTokens(s.Body)},
		Root: s.Root, Manifest: s.ManifestPath, SkillFile: s.SkillPath, Version: s.Version,
		AllowedTools: orEmpty(s.AllowedTools), Arguments: orEmpty(s.Arguments), ArgumentHint: s.ArgumentHint, Agent: s.Agent,
		UserOnly: s.DisableModelInvocation, Invocable: s.UserInvocable, Body: s.Body,
		DynamicContext: skills.DynamicContextNote(cfg.Skills.DynamicContext, !cfg.Trusted, s),
	}
	if opts.JSON {
		return writeJSON(opts.io.Out, out)
	}
	// Everything shown comes from files: control characters are escaped (the
	// body keeps them, and paths are as they are on disk).
	w := opts.io.Out
	line := termtext.EscapeLine
	fmt.Fprintf(w, "name:         %s\n", line(s.Name))
	fmt.Fprintf(w, "source:       %s (%s)\n", s.Source, line(skillPath(s)))
	for _, f := range []struct {
		k, v string
		text bool // may hold several lines
	}{
		{"manifest", s.ManifestPath, false}, {"skill file", s.SkillPath, false}, {"version", s.Version, false},
		{"description", s.Description, true}, {"when to use", s.WhenToUse, true},
		{"triggers", strings.Join(s.Triggers, ", "), false}, {"permissions", strings.Join(s.Permissions, ", "), false},
		{"allowed-tools", strings.Join(s.AllowedTools, " "), false}, {"arguments", strings.Join(s.Arguments, " "), false},
		{"argument-hint", s.ArgumentHint, false}, {"agent", s.Agent, false}, {"status", string(s.Status), false}, {"reason", s.Reason, false},
	} {
		if f.v == "" {
			continue
		}
		v := line(f.v)
		if f.text {
			v = termtext.Escape(f.v)
		}
		fmt.Fprintf(w, "%-13s %s\n", f.k+":", v)
	}
	if out.DynamicContext != "" {
		fmt.Fprintf(w, "dynamic context: %s\n", out.DynamicContext)
	}
	fmt.Fprintf(w, "\n--- body (%d characters, ~%d tokens) ---\n%s\n", utf8.RuneCountInString(s.Body), agent.EstimateTokens(s.Body), termtext.Escape(s.Body))
	return nil
}

func skillsValidateRun(ctx context.Context, opts *skillsOptions, dirs []string) error {
	var diags []skills.Diagnostic
	valid := 0
	if len(dirs) == 0 {
		cfg, err := loadConfig(opts.global, opts.io.Err)
		if err != nil {
			return err
		}
		cat := opts.discover(ctx, cfg)
		diags, valid = cat.Diagnostics, len(cat.Skills)
	} else {
		for _, d := range dirs {
			abs, err := filepath.Abs(d)
			if err != nil {
				return usageError(err)
			}
			s, ds := skills.LoadDir(abs, skills.Options{})
			diags = append(diags, ds...)
			if s != nil {
				valid++
			}
		}
	}
	errorsFound := 0
	for _, d := range diags {
		if d.Severity == skills.SeverityError {
			errorsFound++
		}
	}
	if opts.JSON {
		if diags == nil {
			diags = []skills.Diagnostic{}
		}
		if err := writeJSON(opts.io.Out, map[string]any{"valid": valid, "errors": errorsFound, "diagnostics": diags}); err != nil {
			return err
		}
	} else {
		printDiagnostics(opts.io.Out, diags)
		fmt.Fprintf(opts.io.Out, "%d valid skills, %d errors\n", valid, errorsFound)
	}
	if errorsFound > 0 {
		return &exitError{code: exitFailure, err: errors.New("invalid skills"), silent: true}
	}
	return nil
}

// printDiagnostics prints one line per diagnostic, escaped: a file or
// directory name can hold an ESC or a newline.
func printDiagnostics(w io.Writer, diags []skills.Diagnostic) {
	for _, d := range diags {
		fmt.Fprintf(w, "%s: %s: %s\n", d.Severity, termtext.EscapeLine(d.Path), termtext.EscapeLine(d.Message))
	}
}

func skillsDoctorRun(ctx context.Context, opts *skillsOptions) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	cat := opts.discover(ctx, cfg)
	if opts.JSON {
		diags := cat.Diagnostics
		if diags == nil {
			diags = []skills.Diagnostic{}
		}
		return writeJSON(opts.io.Out, map[string]any{"diagnostics": diags})
	}
	if len(cat.Diagnostics) == 0 {
		fmt.Fprintf(opts.io.Out, "No problems: %d skills discovered.\n", len(cat.Skills))
	} else {
		printDiagnostics(opts.io.Out, cat.Diagnostics)
	}
	// The administrator's skills, which nothing shadows or excludes.
	for _, s := range cat.Skills {
		if s.Source == skills.SourceManaged {
			fmt.Fprintf(opts.io.Out, "managed: %s (%s)\n", termtext.EscapeLine(s.Name), termtext.EscapeLine(skillPath(s)))
		}
	}
	return nil
}

// skillTemplate is the body `skills new` writes: a starting point that says
// what a good skill contains.
const skillTemplate = `# %s

Describe, in imperative steps, how to do the task this skill is for.

1. First step (name the tools to use, e.g. ` + "`file_read`, `shell`" + `).
2. Next step.
3. How to check the result.

Keep this file short: it is added to the system prompt while the skill is active.
`

func skillsNewRun(ctx context.Context, opts *skillsOptions, name string) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	if !skills.ValidName(name) {
		return usageError(fmt.Errorf("invalid skill name %q: use letters, digits, '.', '_', ':' and '-', starting with a letter or digit, at most 64 characters", name))
	}
	root := filepath.Join(cfg.Workspace, ".clawseed", "skills")
	dir, err := skills.Create(root, skills.NewSkill{
		Name:        name,
		Description: "Say what this skill does and when to use it: this line is what the model sees in the skill index.",
		Content:     fmt.Sprintf(skillTemplate, name),
	}, opts.Force)
	if exists := (*skills.ExistsError)(nil); errors.As(err, &exists) {
		// The same remedy as `config init` on an existing file.
		return fmt.Errorf("%w (remove it or choose another name, or use --force to replace its SKILL.md and manifest.toml with the template)", err)
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.io.Out, map[string]string{"name": name, "path": dir})
	}
	dir = termtext.EscapeLine(dir)
	fmt.Fprintf(opts.io.Out, "Created %s\nEdit SKILL.md and manifest.toml there, then check it with: clawseed skills validate %s\n", dir, dir)
	return nil
}
