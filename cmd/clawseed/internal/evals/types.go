// Package evals is `clawseed skills eval` (issue 27): it runs prompts in
// fresh headless sessions on any configured model and measures whether the
// right skill triggers (trigger cases: precision, recall and the confusion
// matrix across the whole catalog) and whether a skill helps (graded cases
// of a Claude Code eval suite, scored with and without the skill).
package evals

import (
	"encoding/json"

	"github.com/clawseed/clawseed/providers"
)

// A Case is one prompt to evaluate.
type Case struct {
	// ID names the case in reports: "cases.yaml:12" for a trigger file's
	// entry, the case folder relative to the suite for a suite's case.
	ID string
	// Line is the line of a trigger file's entry (0 for a suite's case).
	Line   int
	Prompt string
	// Expect is the skill that should activate first; "" with HasExpect
	// means no skill should.
	Expect string
	// HasExpect is true for trigger cases (those count toward precision
	// and recall); graded cases of a suite may leave it false.
	HasExpect bool
	// MaxTurns bounds the model requests of one run (0: the default).
	MaxTurns int
	// AllowedTools are the tools a run may use beyond the read-only ones
	// (Claude Code's allowed_tools); everything that acts is refused
	// otherwise, so an eval never touches the workspace.
	AllowedTools []string
	// Graders score a run; empty for pure trigger cases.
	Graders []Grader
	// Skills are the skills under test for a suite's case (the baseline
	// arm runs without them).
	Skills []string

	// The fields below are a suite case's (suite.go); trigger cases leave
	// them zero.

	// Name is the case's name (its folder's unless it sets one).
	Name string
	// SkillDirs are the folders of Skills, in the same order, so the
	// caller can find each in the catalog whatever it is named there.
	SkillDirs []string
	// Dir is the case's folder; File the file that named its prompt.
	Dir, File string
	Tags      []string
	// Runs is the case's own runs (0: not set; --runs wins).
	Runs int
	// TimeoutSeconds bounds one run (Claude Code's default 300).
	TimeoutSeconds int
	// Skip, when not "", is why the case cannot be run as Claude Code runs
	// it (a scaffold script, a mocked MCP server, a file grader...): the
	// report lists it as skipped, never as passed.
	Skip string
	// Notes are fields read but not applied, shown with the case's result.
	Notes []string
}

// A Grader is one pass/fail check of a run with a weight, as Claude Code's
// suites write them (graders/*.md or case.yaml's graders list).
type Grader struct {
	Name   string
	Kind   string // "llm", "regex", "tool_used", ... as in the suite
	Weight float64
	// Spec holds the kind's own fields (pattern, tool, rubric, ...).
	Spec map[string]any
	// Body is a graders/*.md file's Markdown body (an llm grader's rubric).
	Body string
	// Arm is "", "with-only" or "both" (which arms score the grader).
	Arm string
	// At is where the grader is defined ("graders/x.md:1",
	// "case.yaml:12").
	At string

	spec  *graderSpec    // parsed from Spec by the suite loader
	lines map[string]int // the line of each Spec key, for errors
}

// A ToolCall is one tool call a run made.
type ToolCall struct {
	Name  string
	Input json.RawMessage
}

// A Run is what one run of a case did.
type Run struct {
	// Activated are the skills activated by Skill calls, in order; a
	// trigger-only run stops before its calls run, so for it they are the
	// skills its Skill calls asked for.
	Activated []string
	// FirstTool is the name of the run's first tool call ("" for none),
	// Skill searches left out (they read the catalog); the case
	// triggered its skill when it is Skill with that name.
	FirstTool string
	// FirstSkill is the skill the first tool call activates ("" unless
	// it is a Skill call that activates one): the skill the run
	// triggered.
	FirstSkill string
	ToolCalls  []ToolCall
	// Reply is the final assistant text.
	Reply string
	// Transcript is the conversation as readable text, for a judge.
	Transcript string
	// Status is the turn's (agent.StatusOK, StatusMaxIterations, …);
	// "" when the session could not be built.
	Status  string
	Usage   providers.Usage
	CostUSD float64
	// Unpriced names the models of the run without a known price: their
	// usage is not in CostUSD.
	Unpriced []string
	// Err is what ended the run early, if anything.
	Err error
}
