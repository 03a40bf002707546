package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/evals"
	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills"
)

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

// suggestion is what --suggest proposed and how it scored
// (evals.Suggestion), and the SKILL.md it would replace.
type suggestion struct {
	*evals.Suggestion
	target *suggestTarget
}

// suggest asks for a better description of the target and validates it
// (evals.Runner.Suggest) from the training and validation shares.
func (st *evalState) suggest(ctx context.Context, t *suggestTarget) *suggestion {
	return &suggestion{target: t, Suggestion: st.runner.Suggest(ctx, evals.SuggestInput{
		Catalog: st.cat, Skill: t.skill, Path: t.path, Source: t.src,
		Train: resultsOf(st.out.Results, st.train), Valid: st.valid, ValidResults: resultsOf(st.out.Results, st.valid),
		Runs: st.opts.Runs, Parallel: st.opts.Parallel, MaxCostUSD: st.opts.MaxCostUSD, SpentUSD: st.out.CostUSD,
	})}
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
	if err := atomicfile.Write(t.path, s.NewSource, t.mode); err != nil {
		return fmt.Errorf("--suggest: write %s: %w", t.path, err)
	}
	s.Written = true
	return nil
}
