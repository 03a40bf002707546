package evals

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// A Claude Code eval suite, read as `claude plugin eval` (2.1.269 and
// later, https://code.claude.com/docs/en/plugin-evals) reads it.
//
// What is followed:
//
//   - DIR is the plugin's (or skill's) folder holding evals/ — the eval
//     folder plugin.json names in experimental.evals when it does — or
//     that eval folder itself, or one case's folder; the plugin is then
//     the nearest folder above that is one. Every
//     folder under it holding prompt.md or case.yaml is a case (named
//     after its folder unless it says otherwise); other folders group
//     cases and are searched in turn, except results/, mocks/ and hidden
//     ones. "No eval cases found" is an error.
//   - prompt.md: frontmatter schema_version, name, description, tags,
//     plugins, runs, expected_outcome, model, max_turns, timeout_seconds,
//     allowed_tools, append_system_prompt, env (any other key is an
//     error); the body is the prompt. case.yaml: schema_version ("1.1")
//     and name required; the same fields (those of a run under
//     execution:, with execution.prompt), context.* and a graders list.
//     When both exist prompt.md's frontmatter wins, its body is the
//     prompt, and graders/*.md follow case.yaml's graders.
//   - Graders: graders/NAME.md (frontmatter type and options, body the
//     rubric or pattern) or case.yaml entries with a unique name; common
//     keys type, weight (default 1, positive) and arm (with-only, both);
//     each type's own keys, unknown ones refused: regex (pattern, flags,
//     match contains|not_contains|count:N, target), tool_used (tool,
//     input_match, min default 1, max), tool_order (before, after: a tool
//     or {tool, input_match}), llm (criteria, focus), baseline
//     (baseline_file, criteria), file_exists (path, exists). Patterns are
//     JavaScript (jsregex.go); tool names are Claude Code's (Write is
//     clawseed's file_write) and inputs carry Claude Code's argument
//     names. A case without a grader fails to load.
//   - Defaults: runs 3, max_turns 10, timeout_seconds 300.
//   - The skills under test are the plugin's skills/*/SKILL.md, or the
//     skill whose folder holds the suite; `plugins:` (relative to the
//     case) names other folders. The baseline arm runs without them.
//
// What is not, and how it shows:
//
//   - context.scaffold_script, context.history_file, context.add_dirs,
//     append_system_prompt, file_exists graders and the targets files,
//     {source: file} and mock_calls: the case is skipped and the report
//     says why (clawseed's eval runs never touch the workspace, run no
//     suite scripts and start no plugin MCP server), never scored
//     without them.
//   - allowed_tools beyond the tools that read (Bash, Write, Edit,
//     WebFetch, ...): not granted, as Claude Code does not grant them
//     without the operator's --allow-tools (clawseed has none for
//     suites), and named in the case's notes.
//   - model (runs use --model or the configured model, as `claude plugin
//     eval --model` overrides it), env (runs get no environment to pass
//     it to) and mocks/ folders: read, and named in the case's notes.
//   - The trace a regex or judge reads is clawseed's transcript of the
//     run, not Claude Code's JSON lines.
func LoadSuite(dir string) ([]Case, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("eval suite %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("eval suite: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("eval suite %s: not a folder", dir)
	}
	l := &loader{shown: dir, abs: abs}
	evalDir, pluginDir, err := l.locate()
	if err != nil {
		return nil, err
	}
	l.root = pluginDir
	var cases []Case
	var errs []error
	err = filepath.WalkDir(evalDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.show(path), err))
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != evalDir && (strings.HasPrefix(name, ".") || name == "results" || name == "mocks") {
			return filepath.SkipDir
		}
		if !isFile(filepath.Join(path, "prompt.md")) && !isFile(filepath.Join(path, "case.yaml")) {
			return nil
		}
		if len(cases)+len(errs) >= maxCases {
			return fmt.Errorf("%s: more than %d cases", l.show(evalDir), maxCases)
		}
		c, err := l.loadCase(evalDir, path, pluginDir)
		if err != nil {
			errs = append(errs, err)
		} else {
			cases = append(cases, c)
		}
		return filepath.SkipDir // a case's subfolders are its own
	})
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return cases, errors.Join(errs...)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no eval cases found (no <case>/prompt.md or <case>/case.yaml)", l.show(evalDir))
	}
	names := map[string]string{}
	for _, c := range cases {
		if prev, dup := names[c.Name]; dup {
			return nil, fmt.Errorf("%s and %s: two cases are named %q", prev, c.File, c.Name)
		}
		names[c.Name] = c.File
	}
	return cases, nil
}

// Caps of what a suite may hold.
const (
	maxCases        = 1000
	maxCaseFile     = 256 << 10 // case.yaml, prompt.md, a grader
	maxBaselineFile = 1 << 20   // a baseline grader's reference transcript
	maxGraderFiles  = 100
)

// loader reads one suite's files.
type loader struct {
	shown, abs string // DIR as given and absolute
	root       string // the folder every file read must lie in
}

// show names path as the user wrote DIR, for errors.
func (l *loader) show(path string) string {
	rel, err := filepath.Rel(l.abs, path)
	if err != nil {
		return path
	}
	return filepath.Join(l.shown, rel)
}

// read reads a suite file through confine: a regular file inside the
// plugin folder, at most max bytes.
func (l *loader) read(path string, max int64) ([]byte, error) {
	data, err := confine.Read(path, confine.Options{Roots: []string{l.root}, Max: max})
	if err != nil {
		return nil, fmt.Errorf("%s: %s", l.show(path), confine.Why(err))
	}
	return data, nil
}

// locate finds the eval folder and the plugin folder of DIR: DIR holding
// evals/ or a plugin manifest is the plugin; otherwise DIR is the eval
// folder (or a single case's folder) and the plugin is the nearest folder
// above it that is one (a manifest, SKILL.md or skills/).
func (l *loader) locate() (evalDir, pluginDir string, err error) {
	if isDir(filepath.Join(l.abs, "evals")) || isFile(filepath.Join(l.abs, ".claude-plugin", "plugin.json")) || isFile(filepath.Join(l.abs, "plugin.json")) {
		rel, err := l.manifestEvalDir()
		if err != nil {
			return "", "", err
		}
		return filepath.Join(l.abs, rel), l.abs, nil
	}
	d := filepath.Dir(l.abs)
	for range 4 {
		if isPlugin(d) {
			return l.abs, d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return l.abs, filepath.Dir(l.abs), nil
}

// isPlugin reports whether d looks like a plugin or skill folder.
func isPlugin(d string) bool {
	return isFile(filepath.Join(d, ".claude-plugin", "plugin.json")) || isFile(filepath.Join(d, "plugin.json")) ||
		isFile(filepath.Join(d, "SKILL.md")) || isDir(filepath.Join(d, "skills"))
}

// manifestEvalDir returns plugin.json's experimental.evals, else "evals".
// Like Claude Code, an unusable value (absolute, or with ..) is an error.
func (l *loader) manifestEvalDir() (string, error) {
	for _, p := range []string{filepath.Join(l.abs, ".claude-plugin", "plugin.json"), filepath.Join(l.abs, "plugin.json")} {
		if !isFile(p) {
			continue
		}
		l.root = l.abs
		data, err := l.read(p, confine.MaxSettingsJSON)
		if err != nil {
			return "", err
		}
		var m struct {
			Experimental struct {
				Evals string `json:"evals"`
			} `json:"experimental"`
		}
		if json.Unmarshal(data, &m) != nil || m.Experimental.Evals == "" {
			return "evals", nil
		}
		e := m.Experimental.Evals
		if filepath.IsAbs(e) || slices.Contains(strings.Split(filepath.ToSlash(e), "/"), "..") {
			return "", fmt.Errorf("%s: experimental.evals: %q must be a relative path without ..", l.show(p), e)
		}
		return filepath.Clean(e), nil
	}
	return "evals", nil
}

// loadCase reads the case in folder dir.
func (l *loader) loadCase(evalDir, dir, pluginDir string) (Case, error) {
	var d *caseDoc
	file := ""
	if p := filepath.Join(dir, "case.yaml"); isFile(p) {
		data, err := l.read(p, maxCaseFile)
		if err != nil {
			return Case{}, err
		}
		if d, err = parseCaseYAML(l.show(p), data); err != nil {
			return Case{}, err
		}
		file = l.show(p)
	}
	if p := filepath.Join(dir, "prompt.md"); isFile(p) {
		data, err := l.read(p, maxCaseFile)
		if err != nil {
			return Case{}, err
		}
		pd, err := parsePromptMD(l.show(p), data)
		if err != nil {
			return Case{}, err
		}
		d = merge(d, pd)
		file = l.show(p)
	}
	rel, _ := filepath.Rel(evalDir, dir)
	if rel == "." {
		rel = filepath.Base(dir) // DIR is this one case's folder
	}
	c := Case{
		ID: filepath.ToSlash(rel), Name: d.Name, Dir: dir, File: file, Prompt: d.Prompt,
		Tags: d.Tags, Runs: d.Runs, MaxTurns: d.MaxTurns, TimeoutSeconds: d.TimeoutSeconds,
		AllowedTools: d.AllowedTools, Graders: d.Graders,
	}
	if c.Name == "" {
		c.Name = filepath.Base(dir)
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = 10
	}
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = 300
	}
	if strings.TrimSpace(c.Prompt) == "" && d.HistoryFile == "" {
		return Case{}, &FileError{File: file, Line: 1, Key: "prompt", Msg: "the case has no prompt (prompt.md's body or execution.prompt)"}
	}
	graders, err := l.graderFiles(dir)
	if err != nil {
		return Case{}, err
	}
	c.Graders = append(c.Graders, graders...)
	if len(c.Graders) == 0 {
		return Case{}, &FileError{File: file, Msg: "the case has no grader (graders/*.md or case.yaml's graders); Claude Code refuses it too"}
	}
	seen := map[string]string{}
	readCaseFile := func(name string) (string, error) {
		p := filepath.Join(dir, name)
		if filepath.IsAbs(name) || !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return "", fmt.Errorf("%q is not a file of the case folder", name)
		}
		data, err := l.read(p, maxBaselineFile)
		return string(data), err
	}
	for i := range c.Graders {
		g := &c.Graders[i]
		if prev, dup := seen[g.Name]; dup {
			return Case{}, &FileError{File: g.At, Key: "name", Msg: fmt.Sprintf("%q is also the name of the grader at %s", g.Name, prev)}
		}
		seen[g.Name] = g.At
		gfile := g.At[:strings.LastIndexByte(g.At, ':')]
		if err := buildSpec(gfile, g, readCaseFile); err != nil {
			return Case{}, err
		}
	}
	if err := l.underTest(&c, d, dir, pluginDir); err != nil {
		return Case{}, err
	}
	l.unsupported(&c, d, dir, evalDir)
	return c, nil
}

// graderFiles reads dir/graders/*.md, sorted by name.
func (l *loader) graderFiles(dir string) ([]Grader, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "graders"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.show(filepath.Join(dir, "graders")), err)
	}
	var out []Grader
	for _, e := range entries { // os.ReadDir sorts by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		if len(out) == maxGraderFiles {
			return nil, fmt.Errorf("%s: more than %d graders", l.show(filepath.Join(dir, "graders")), maxGraderFiles)
		}
		p := filepath.Join(dir, "graders", e.Name())
		data, err := l.read(p, maxCaseFile)
		if err != nil {
			return nil, err
		}
		g, err := parseGraderMD(l.show(p), strings.TrimSuffix(e.Name(), ".md"), data)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// underTest sets the case's skills under test: those of the plugin (or
// skill) folders its plugins: field names, else of the suite's plugin.
func (l *loader) underTest(c *Case, d *caseDoc, dir, pluginDir string) error {
	folders := []string{pluginDir}
	if len(d.Plugins) > 0 {
		folders = folders[:0]
		for _, p := range d.Plugins {
			folders = append(folders, filepath.Join(dir, p))
		}
	}
	for _, f := range folders {
		dirs := []string{f}
		if !isFile(filepath.Join(f, "SKILL.md")) {
			matches, _ := filepath.Glob(filepath.Join(f, "skills", "*", "SKILL.md"))
			dirs = dirs[:0]
			for _, m := range matches {
				dirs = append(dirs, filepath.Dir(m))
			}
		}
		for _, sd := range dirs {
			s, diags := skills.LoadDir(sd, skills.Options{})
			if s == nil {
				msg := "not a skill"
				if len(diags) > 0 {
					msg = diags[0].Message
				}
				return fmt.Errorf("%s: skill under test %s: %s", c.File, l.show(sd), msg)
			}
			c.Skills = append(c.Skills, s.Name)
			c.SkillDirs = append(c.SkillDirs, sd)
		}
	}
	if len(c.Skills) == 0 {
		c.Notes = append(c.Notes, "no skill found under test (skills/*/SKILL.md of "+l.show(pluginDir)+"): no baseline arm")
	}
	return nil
}

// unsupported marks what clawseed cannot run as Claude Code would: a
// reason to skip the case, or a note.
func (l *loader) unsupported(c *Case, d *caseDoc, dir, evalDir string) {
	var why []string
	if d.ScaffoldScript != "" {
		why = append(why, "context.scaffold_script (clawseed runs no suite script and never writes the workspace)")
	}
	if d.HistoryFile != "" {
		why = append(why, "context.history_file (resuming a Claude Code transcript)")
	}
	if len(d.AddDirs) > 0 {
		why = append(why, "context.add_dirs")
	}
	if d.AppendSystemPrompt != "" {
		why = append(why, "append_system_prompt")
	}
	for _, g := range c.Graders {
		if g.spec.unsupported != "" {
			why = append(why, "grader "+g.Name+": "+g.spec.unsupported)
		}
	}
	if len(why) > 0 {
		c.Skip = "not supported: " + strings.Join(why, "; ")
	}
	if denied := grantable(c); len(denied) > 0 {
		c.Notes = append(c.Notes, "allowed_tools "+strings.Join(denied, ", ")+" not granted: a suite's case may allow only tools that read (Claude Code too needs the operator's --allow-tools for the others)")
	}
	if d.Model != "" {
		c.Notes = append(c.Notes, "model "+d.Model+" not used: runs use --model or the configured model")
	}
	if len(d.Env) > 0 {
		c.Notes = append(c.Notes, "env not passed: clawseed's eval runs start no process to pass it to")
	}
	if isDir(filepath.Join(dir, "mocks")) || isDir(filepath.Join(evalDir, "mocks")) {
		c.Notes = append(c.Notes, "mocks/ not used: clawseed starts no plugin MCP server in eval runs")
	}
}

// readOnlyTools are the tools a case's allowed_tools grants by itself in
// Claude Code: every other (Bash, Write, Edit, WebFetch, WebSearch, MCP
// tools) needs the operator's --allow-tools there, and a case alone
// cannot extend that grant. clawseed has no such grant for suites: a
// suite, often someone else's, never makes a run act on the workspace.
var readOnlyTools = []string{
	"Read", "Glob", "Grep", "NotebookRead", "Skill", "AskUserQuestion", "Agent", "Task", "TodoWrite",
	"TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "TaskStop",
}

// grantable keeps in c.AllowedTools the tools a case may grant and
// returns the others.
func grantable(c *Case) (denied []string) {
	var kept []string
	for _, t := range c.AllowedTools {
		name, _, _ := strings.Cut(t, "(")
		name = strings.TrimSpace(name)
		if slices.Contains(readOnlyTools, name) || slices.Contains(readOnlyTools, permissions.ClaudeName(name)) {
			kept = append(kept, t)
		} else {
			denied = append(denied, t)
		}
	}
	c.AllowedTools = kept
	return denied
}

// merge applies prompt.md's fields p over case.yaml's c (nil when there is
// no case.yaml).
func merge(c, p *caseDoc) *caseDoc {
	if c == nil {
		return p
	}
	if p.set["name"] {
		c.Name = p.Name
	}
	if p.set["tags"] {
		c.Tags = p.Tags
	}
	if p.set["plugins"] {
		c.Plugins = p.Plugins
	}
	if p.set["runs"] {
		c.Runs = p.Runs
	}
	if p.set["model"] {
		c.Model = p.Model
	}
	if p.set["max_turns"] {
		c.MaxTurns = p.MaxTurns
	}
	if p.set["timeout_seconds"] {
		c.TimeoutSeconds = p.TimeoutSeconds
	}
	if p.set["allowed_tools"] {
		c.AllowedTools = p.AllowedTools
	}
	if p.set["append_system_prompt"] {
		c.AppendSystemPrompt = p.AppendSystemPrompt
	}
	if p.set["env"] {
		c.Env = p.Env
	}
	c.Prompt, c.HasPrompt = p.Prompt, true
	return c
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
