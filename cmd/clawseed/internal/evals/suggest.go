package evals

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/internal/textdiff"
	"github.com/clawseed/clawseed/skills"
)

// `skills eval --suggest`: a better description of one skill asked of the
// model from its misses in the training share, and scored on the
// validation share. Which skill may be rewritten, the question and the
// writing are the command's (cmd/clawseed/skills_eval_suggest.go).

// SuggestPurpose names the side request of --suggest in the usage.
const SuggestPurpose = "skill description"

// maxDescription is the most runes a skill's description may have.
const maxDescription = 1024

// A Suggestion is what --suggest proposed and how it scored.
type Suggestion struct {
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
	Validation *SuggestScores `json:"validation"`
	Validated  bool           `json:"validated"`
	// Written is set by whoever writes NewSource.
	Written bool `json:"written"`
	// Note says why nothing was suggested, validated or written.
	Note string `json:"note,omitempty"`

	// NewSource is SKILL.md with the new description.
	NewSource []byte `json:"-"`
	// Answer is the model's answer, Outcome the validation runs with the
	// new description: what they cost goes into the report's usage.
	Answer  Answer  `json:"-"`
	Outcome Outcome `json:"-"`
}

// SuggestScores are the skill's scores on the validation share.
type SuggestScores struct {
	Cases   int   `json:"cases"`
	Current Score `json:"current"`
	New     Score `json:"new"`
}

// SuggestInput is what [Runner.Suggest] learns from and validates with.
type SuggestInput struct {
	Catalog *skills.Catalog
	Skill   *skills.Skill
	// Path is the skill's SKILL.md, Source its content as read.
	Path   string
	Source []byte
	// Train are the training share's results; Valid the validation
	// share's cases and ValidResults their results with the current
	// description.
	Train        []Result
	Valid        []Case
	ValidResults []Result
	Runs         int
	Parallel     int
	// MaxCostUSD is the eval's cost ceiling (0: none), SpentUSD what the
	// eval has cost so far.
	MaxCostUSD, SpentUSD float64
}

// scoreOf is name's score in rep (a zero one when it has none).
func scoreOf(rep Report, name string) Score {
	for _, s := range rep.Skills {
		if s.Skill == name {
			return s
		}
	}
	return Score{Skill: name}
}

// Suggest asks the model for a better description of the skill from its
// misses and false triggers in the training share, then runs the
// validation share with it. What goes wrong after the runs is a Note:
// the report is printed whatever happens.
func (r *Runner) Suggest(ctx context.Context, in SuggestInput) *Suggestion {
	name := in.Skill.Name
	sug := &Suggestion{Skill: name, Path: in.Path, Old: in.Skill.Description}
	score := scoreOf(ScoreResults(in.Train), name)
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
	ans, err := r.Ask(ctx, AskRequest{Purpose: SuggestPurpose, System: suggestSystem, Prompt: suggestPrompt(in.Catalog, in.Skill, score, in.Train)})
	sug.Answer = ans
	if err != nil {
		sug.Note = "the model could not be asked: " + err.Error()
		return sug
	}
	sug.New = cleanDescription(ans.Text)
	if sug.Note = checkDescription(sug.New, sug.Old); sug.Note != "" {
		return sug
	}
	sug.NewSource, err = skills.SetDescription(in.Source, sug.New)
	if err != nil {
		sug.Note = "cannot set the description in " + in.Path + ": " + err.Error()
		return sug
	}
	sug.Diff = textdiff.Unified(in.Path, in.Path, string(in.Source), string(sug.NewSource), 3)
	if len(in.Valid) == 0 {
		sug.Note = "no validation cases to check it on: not written"
		return sug
	}
	ceiling := in.MaxCostUSD
	if ceiling > 0 {
		if ceiling -= in.SpentUSD + ans.CostUSD; ceiling <= 0 {
			sug.Note = "the cost ceiling was reached before the validation runs: not written"
			return sug
		}
	}
	descs := map[string]string{name: sug.New}
	sug.Outcome = Execute(ctx, r.Run, Plan{Cases: in.Valid, Runs: in.Runs, Parallel: in.Parallel, MaxCostUSD: ceiling,
		Options: func(Case) RunOptions { return RunOptions{Descriptions: descs} }})
	sug.Validation = &SuggestScores{Cases: len(in.Valid),
		Current: scoreOf(ScoreResults(in.ValidResults), name),
		New:     scoreOf(ScoreResults(sug.Outcome.Results), name)}
	switch {
	case sug.Outcome.Cancelled > 0:
		sug.Note = "the validation runs were interrupted: not written"
	case sug.Outcome.Skipped > 0:
		sug.Note = fmt.Sprintf("the cost ceiling stopped the validation runs (%d of %d skipped): not written", sug.Outcome.Skipped, sug.Outcome.Planned)
	default:
		sug.Validated = true
	}
	return sug
}

// checkDescription says why the model's description (cleaned) cannot
// replace old; "" when it can.
func checkDescription(desc, old string) string {
	switch {
	case desc == "":
		return "the model's answer held no description"
	case desc == strings.TrimSpace(old):
		return "the model suggested the current description"
	case len([]rune(desc)) > maxDescription:
		return fmt.Sprintf("the suggested description has %d characters, more than the %d a description may have", len([]rune(desc)), maxDescription)
	}
	return ""
}

// suggestSystem is the system prompt of --suggest's request.
const suggestSystem = `You improve the description of an agent skill. An agent decides whether to load a skill (by calling the Skill tool) from its name and description alone, listed among every other skill's. Write a new description of the skill below so that the agent loads it for requests like the ones it missed and not for the ones that are another skill's or none's, without copying their exact words: say what the skill does and when to use it, and set it apart from the skills it was confused with.
Answer with the new description only: plain text, at most 1024 characters, no quotes, no heading, no explanation.`

// maxOtherSkills bounds the other skills listed in the request.
const maxOtherSkills = 60

// suggestPrompt is the request: the skill, its neighbours (those it was
// confused with first), and the training prompts it got wrong and right.
func suggestPrompt(cat *skills.Catalog, s *skills.Skill, score Score, train []Result) string {
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
	section := func(title, kind string, line func(NearMiss) string) {
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
	section("Requests that should have loaded it and did not:", "missed", func(m NearMiss) string {
		return fmt.Sprintf("missed in %d of %d runs (loaded instead: %s)", m.Wrong, m.Runs, strings.Join(m.Fired, ", "))
	})
	section("Requests that loaded it and should not have:", "false_trigger", func(m NearMiss) string {
		want := "no skill"
		if m.Expect != None {
			want = m.Expect
		}
		return fmt.Sprintf("in %d of %d runs (should have loaded: %s)", m.Wrong, m.Runs, want)
	})
	var hits []string
	for _, r := range train {
		if r.Case.Expect != s.Name || slices.ContainsFunc(score.NearMisses, func(m NearMiss) bool { return m.ID == r.Case.ID }) {
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
