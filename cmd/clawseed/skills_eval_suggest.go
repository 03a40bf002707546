package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/evals"
	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/internal/textdiff"
	"github.com/clawseed/clawseed/skills"
)

// suggestPurpose names the side request of --suggest in the usage.
const suggestPurpose = "skill description"

// writableSource reports whether --suggest may rewrite the skills of a
// root: the workspace's and the user's own folders (not built-ins,
// plugins, extra roots, or skills an MCP server serves).
func writableSource(src skills.Source) bool {
	switch src {
	case skills.SourceProject, skills.SourceProjectClaude, skills.SourceProjectAgents,
		skills.SourceUser, skills.SourceUserClaude, skills.SourceUserAgents:
		return true
	}
	return false
}

// suggestTarget is the skill --suggest names, checked writable before
// anything runs.
type suggestTarget struct {
	skill *skills.Skill
	path  string // its SKILL.md
	src   []byte // SKILL.md as read
	mode  os.FileMode
}

// newSuggestTarget checks that the skill name exists and that its
// description lives in a SKILL.md frontmatter --suggest may rewrite.
func newSuggestTarget(cfg *config.Config, cat *skills.Catalog, name string) (*suggestTarget, error) {
	s := cat.Lookup(name)
	if s == nil {
		return nil, usageError(fmt.Errorf("--suggest: no skill %q (see clawseed skills list)", name))
	}
	refuse := func(why string) error {
		return fmt.Errorf("--suggest: skill %s %s", name, why)
	}
	switch {
	case s.Source == skills.SourceBuiltin || s.Dir == "":
		return nil, refuse("is built in: its description cannot be rewritten")
	case !writableSource(s.Source):
		return nil, refuse(fmt.Sprintf("comes from %s (%s): --suggest rewrites only skills in the workspace's and the user's skill folders", s.Source, s.Root))
	case s.Command || s.SkillPath == "" || filepath.Base(s.SkillPath) != "SKILL.md":
		return nil, refuse("has no SKILL.md to hold its description")
	}
	if s.ManifestPath != "" {
		var m struct {
			Skill map[string]any `toml:"skill"`
		}
		if _, err := toml.DecodeFile(s.ManifestPath, &m); err == nil && m.Skill["description"] != nil {
			return nil, refuse("has its description in manifest.toml, which wins over SKILL.md: edit it there")
		}
	}
	info, err := os.Stat(s.SkillPath)
	if err != nil {
		return nil, refuse(err.Error())
	}
	// Its real path must lie in its root: a SKILL.md linked from
	// elsewhere is not rewritten through the link.
	src, err := confine.Read(s.SkillPath, confine.Options{Roots: []string{s.Root}, Max: int64(cfg.Skills.MaxSkillFileBytes)})
	if err != nil {
		return nil, refuse("cannot be rewritten: " + confine.Why(err))
	}
	return &suggestTarget{skill: s, path: s.SkillPath, src: src, mode: info.Mode().Perm()}, nil
}

// suggestion is what --suggest proposed and how it scored.
type suggestion struct {
	Skill string `json:"skill"`
	Path  string `json:"path"`
	Old   string `json:"old"`
	New   string `json:"new"`
	// Diff is the change to SKILL.md, unified.
	Diff string `json:"diff"`
	// Missed and FalseTriggers are the training cases learnt from.
	Missed        int `json:"missed"`
	FalseTriggers int `json:"false_triggers"`
	// Validation scores the skill on the validation share with the
	// current description and with the new one.
	Validation *suggestScores `json:"validation"`
	Validated  bool           `json:"validated"`
	Written    bool           `json:"written"`
	// Note says why nothing was suggested, validated or written.
	Note string `json:"note,omitempty"`

	target *suggestTarget
	newSrc []byte
	ask    evals.Answer
	out    evals.Outcome // the validation runs with the new description
}

// suggestScores are the skill's scores on the validation share.
type suggestScores struct {
	Cases   int         `json:"cases"`
	Current evals.Score `json:"current"`
	New     evals.Score `json:"new"`
}

// scoreOf is name's score in rep (a zero one when it has none).
func scoreOf(rep evals.Report, name string) evals.Score {
	for _, s := range rep.Skills {
		if s.Skill == name {
			return s
		}
	}
	return evals.Score{Skill: name}
}

// suggest asks the model for a better description of the target from
// its misses and false triggers in the training share, then runs the
// validation share with it. What goes wrong after the runs is a Note:
// the report is printed whatever happens.
func (st *evalState) suggest(ctx context.Context, t *suggestTarget) *suggestion {
	name := t.skill.Name
	sug := &suggestion{Skill: name, Path: t.path, Old: t.skill.Description, target: t}
	train := evals.ScoreResults(resultsOf(st.out.Results, st.train))
	score := scoreOf(train, name)
	for _, m := range score.NearMisses {
		if m.Kind == "missed" {
			sug.Missed++
		} else {
			sug.FalseTriggers++
		}
	}
	if len(score.NearMisses) == 0 {
		sug.Note = "no misses or false triggers of " + name + " in the training share: nothing to learn from"
		return sug
	}
	ans, err := st.runner.Ask(ctx, evals.AskRequest{Purpose: suggestPurpose, System: suggestSystem, Prompt: suggestPrompt(st.cat, t.skill, score, resultsOf(st.out.Results, st.train))})
	sug.ask = ans
	if err != nil {
		sug.Note = "the model could not be asked: " + err.Error()
		return sug
	}
	sug.New = cleanDescription(ans.Text)
	switch {
	case sug.New == "":
		sug.Note = "the model's answer held no description"
		return sug
	case sug.New == strings.TrimSpace(sug.Old):
		sug.Note = "the model suggested the current description"
		return sug
	case len([]rune(sug.New)) > 1024:
		sug.Note = fmt.Sprintf("the suggested description has %d characters, more than the 1024 a description may have", len([]rune(sug.New)))
		return sug
	}
	sug.newSrc, err = skills.SetDescription(t.src, sug.New)
	if err != nil {
		sug.Note = "cannot set the description in " + t.path + ": " + err.Error()
		return sug
	}
	sug.Diff = textdiff.Unified(t.path, t.path, string(t.src), string(sug.newSrc), 3)
	if len(st.valid) == 0 {
		sug.Note = "no validation cases to check it on: not written"
		return sug
	}
	ceiling := st.opts.MaxCostUSD
	if ceiling > 0 {
		if ceiling -= st.out.CostUSD + ans.CostUSD; ceiling <= 0 {
			sug.Note = "the cost ceiling was reached before the validation runs: not written"
			return sug
		}
	}
	descs := map[string]string{name: sug.New}
	sug.out = evals.Execute(ctx, st.runner.Run, evals.Plan{Cases: st.valid, Runs: st.opts.Runs, Parallel: st.opts.Parallel, MaxCostUSD: ceiling,
		Options: func(evals.Case) evals.RunOptions { return evals.RunOptions{Descriptions: descs} }})
	sug.Validation = &suggestScores{Cases: len(st.valid),
		Current: scoreOf(evals.ScoreResults(resultsOf(st.out.Results, st.valid)), name),
		New:     scoreOf(evals.ScoreResults(sug.out.Results), name)}
	switch {
	case sug.out.Cancelled > 0:
		sug.Note = "the validation runs were interrupted: not written"
	case sug.out.Skipped > 0:
		sug.Note = fmt.Sprintf("the cost ceiling stopped the validation runs (%d of %d skipped): not written", sug.out.Skipped, sug.out.Planned)
	default:
		sug.Validated = true
	}
	return sug
}

// suggestSystem is the system prompt of --suggest's request.
const suggestSystem = `You improve the description of an agent skill. An agent decides whether to load a skill (by calling the Skill tool) from its name and description alone, listed among every other skill's. Write a new description of the skill below so that the agent loads it for requests like the ones it missed and not for the ones that are another skill's or none's, without copying their exact words: say what the skill does and when to use it, and set it apart from the skills it was confused with.
Answer with the new description only: plain text, at most 1024 characters, no quotes, no heading, no explanation.`

// maxOtherSkills bounds the other skills listed in the request.
const maxOtherSkills = 60

// suggestPrompt is the request: the skill, its neighbours (those it was
// confused with first), and the training prompts it got wrong and right.
func suggestPrompt(cat *skills.Catalog, s *skills.Skill, score evals.Score, train []evals.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill: %s\nCurrent description:\n%s\n", s.Name, s.Description)
	confused := map[string]bool{}
	for _, m := range score.NearMisses {
		for _, f := range append(slices.Clone(m.Fired), m.Expect) {
			confused[f] = true
		}
	}
	var others []*skills.Skill
	for _, o := range cat.Listed() {
		if o.Name != s.Name {
			others = append(others, o)
		}
	}
	slices.SortStableFunc(others, func(a, b *skills.Skill) int {
		switch {
		case confused[a.Name] == confused[b.Name]:
			return strings.Compare(a.Name, b.Name)
		case confused[a.Name]:
			return -1
		}
		return 1
	})
	if len(others) > 0 {
		b.WriteString("\nOther skills (name: description):\n")
		for i, o := range others {
			if i == maxOtherSkills {
				fmt.Fprintf(&b, "… and %d more\n", len(others)-i)
				break
			}
			fmt.Fprintf(&b, "- %s: %s\n", o.Name, oneLine(o.Description, 300))
		}
	}
	section := func(title, kind string, line func(evals.NearMiss) string) {
		first := true
		for _, m := range score.NearMisses {
			if m.Kind != kind {
				continue
			}
			if first {
				b.WriteString("\n" + title + "\n")
				first = false
			}
			fmt.Fprintf(&b, "- %q: %s\n", oneLine(m.Prompt, 500), line(m))
		}
	}
	section("Requests that should have loaded it and did not:", "missed", func(m evals.NearMiss) string {
		return fmt.Sprintf("missed in %d of %d runs (loaded instead: %s)", m.Wrong, m.Runs, strings.Join(m.Fired, ", "))
	})
	section("Requests that loaded it and should not have:", "false_trigger", func(m evals.NearMiss) string {
		want := "no skill"
		if m.Expect != evals.None {
			want = m.Expect
		}
		return fmt.Sprintf("in %d of %d runs (should have loaded: %s)", m.Wrong, m.Runs, want)
	})
	var hits []string
	for _, r := range train {
		if r.Case.Expect != s.Name || slices.ContainsFunc(score.NearMisses, func(m evals.NearMiss) bool { return m.ID == r.Case.ID }) {
			continue
		}
		hits = append(hits, fmt.Sprintf("- %q\n", oneLine(r.Case.Prompt, 500)))
	}
	if len(hits) > 0 {
		b.WriteString("\nRequests that loaded it, as they should:\n" + strings.Join(hits[:min(len(hits), 10)], ""))
	}
	return b.String()
}

// oneLine joins text's lines and cuts it to n runes.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}

// cleanDescription is the model's answer without what models wrap a
// one-line answer in: a code fence, a "description:" label, quotes.
func cleanDescription(text string) string {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "```") {
		text = strings.TrimPrefix(text, "```")
		if i := strings.IndexByte(text, '\n'); i >= 0 && !strings.Contains(text[:i], " ") {
			text = text[i+1:] // the fence's language word
		}
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "```"))
	}
	if rest, ok := strings.CutPrefix(text, "description:"); ok {
		text = strings.TrimSpace(rest)
	}
	for _, q := range []string{`"`, `'`} {
		if len(text) >= 2 && strings.HasPrefix(text, q) && strings.HasSuffix(text, q) {
			text = strings.TrimSpace(text[1 : len(text)-1])
		}
	}
	return text
}

// print shows the suggestion: the diff, the validation scores, and what
// happened to it.
func (s *suggestion) print(w io.Writer) {
	fmt.Fprintf(w, "\nSuggested description for %s (from %d missed and %d falsely triggered training cases):\n", termtext.EscapeLine(s.Skill), s.Missed, s.FalseTriggers)
	if s.Diff != "" {
		fmt.Fprint(w, termtext.Escape(s.Diff))
	}
	if v := s.Validation; v != nil {
		fmt.Fprintf(w, "\nValidation share (%d cases), %s:\n", v.Cases, termtext.EscapeLine(s.Skill))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DESCRIPTION\tRUNS\tTRIGGERED\tPRECISION\tRECALL\tFALSE TRIGGERS")
		for _, row := range []struct {
			name string
			sc   evals.Score
		}{{"current", v.Current}, {"suggested", v.New}} {
			falses := 0
			for _, n := range row.sc.FalseTriggers {
				falses += n
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%d\n", row.name, row.sc.Runs, row.sc.Triggered, percent(row.sc.Precision), percent(row.sc.Recall), falses)
		}
		tw.Flush()
	}
	switch {
	case s.Note != "":
		fmt.Fprintln(w, "--suggest: "+termtext.EscapeLine(s.Note))
	case s.Written:
		fmt.Fprintln(w, "Written to "+termtext.EscapeLine(s.Path)+".")
	}
}

// confirmSuggestion asks on a terminal whether to write the validated
// suggestion; elsewhere it says how to (--yes).
func (st *evalState) confirmSuggestion(ctx context.Context, s *suggestion) error {
	out := st.opts.io.Out
	if !isTerminal(stdinFile(st.opts.io.In)) {
		fmt.Fprintln(out, "Not written: run again with --yes to write it.")
		return nil
	}
	fmt.Fprintf(out, "Write the new description to %s? [y/N] ", termtext.EscapeLine(s.Path))
	line, _ := bufio.NewReader(st.opts.io.In).ReadString('\n')
	if ctx.Err() != nil {
		return nil
	}
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintln(out, "Not written.")
		return nil
	}
	if err := s.write(); err != nil {
		return err
	}
	fmt.Fprintln(out, "Written to "+termtext.EscapeLine(s.Path)+".")
	return nil
}

// write replaces SKILL.md with the new description, unless the file
// changed since the eval read it.
func (s *suggestion) write() error {
	t := s.target
	now, err := os.ReadFile(t.path)
	if err != nil {
		return fmt.Errorf("--suggest: %w", err)
	}
	if !bytes.Equal(now, t.src) {
		return fmt.Errorf("--suggest: %s changed while the eval ran; not written", t.path)
	}
	if err := atomicfile.Write(t.path, s.newSrc, t.mode); err != nil {
		return fmt.Errorf("--suggest: write %s: %w", t.path, err)
	}
	s.Written = true
	return nil
}
