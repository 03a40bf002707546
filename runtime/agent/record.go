package agent

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
)

// A Recorder persists the session as it changes (runtime/session's Writer).
// Each call returns once its record is written, so a crash loses at most the
// record being written. A failure is reported once, as an error event, and
// the conversation goes on in memory.
type Recorder interface {
	RecordMessage(providers.Message) error
	RecordSkill(session.SkillChange) error
	RecordCompaction(session.Compaction) error
	// RecordUsage records the usage of responses to requests for model.
	RecordUsage(model string, u providers.Usage) error
	// RecordFork records a fork skill's sub-agent transcript.
	RecordFork(session.Fork) error
	// RecordRecall records the memories automatic recall gave the model.
	RecordRecall(memories []string) error
	// RecordTodos records the todo list as it now stands (nil: cleared).
	RecordTodos(items []session.Todo) error
}

// SetRecorder replaces the session recorder (/clear starts a new file); nil
// stops recording. The active skills are recorded anew into it.
func (a *Agent) SetRecorder(r Recorder) {
	a.opts.Recorder = r
	a.recordFailed.Store(false)
	a.recordedSkills = nil
	a.syncSkills()
}

// add appends messages to the history and records them.
func (a *Agent) add(msgs ...providers.Message) {
	a.history = append(a.history, msgs...)
	a.sessionMsgs += len(msgs)
	a.logTurn(msgs)
	if a.opts.Recorder == nil {
		return
	}
	for _, m := range msgs {
		a.recorded(a.opts.Recorder.RecordMessage(m))
	}
}

// recorded reports the first recording failure of the session.
func (a *Agent) recorded(err error) {
	if err == nil || !a.recordFailed.CompareAndSwap(false, true) {
		return
	}
	a.opts.Sink(Event{Type: EventError, Text: "session not saved: " + err.Error()})
}

// syncSkills records how the active set changed since it was last recorded.
// It diffs snapshots rather than hooking every activation path (Skill calls,
// /activate, skill_create reloads, always-on skills, restore), so no path
// can be missed. Replaying the records rebuilds the same set in the same
// order: a skill whose position changed is deactivated and activated again.
func (a *Agent) syncSkills() {
	if a.opts.Recorder == nil || !a.opts.SkillsEnabled {
		return
	}
	now := a.opts.Skills.Snapshot()
	old := a.recordedSkills
	index := func(list []skills.SnapshotEntry, name string) int {
		return slices.IndexFunc(list, func(e skills.SnapshotEntry) bool { return e.Name == name })
	}
	// Replay appends new activations and updates others in place, so it
	// rebuilds now only if the skills in both lists keep their order.
	var oldKept, nowKept []string
	for _, o := range old {
		if index(now, o.Name) >= 0 {
			oldKept = append(oldKept, o.Name)
		}
	}
	for _, e := range now {
		if index(old, e.Name) >= 0 {
			nowKept = append(nowKept, e.Name)
		}
	}
	reorder := !slices.Equal(oldKept, nowKept)
	for _, o := range old {
		if reorder || index(now, o.Name) < 0 {
			a.recorded(a.opts.Recorder.RecordSkill(session.SkillChange{Action: "deactivate", Name: o.Name}))
		}
	}
	if reorder {
		old = nil // everything is activated again, in order
	}
	for _, e := range now {
		if i := index(old, e.Name); i >= 0 && old[i] == e {
			continue
		}
		a.recorded(a.opts.Recorder.RecordSkill(session.SkillChange{Action: "activate", Name: e.Name, Args: e.Args, Hash: e.Hash}))
	}
	a.recordedSkills = now
}

// Resume restores a saved session: its history (repaired so every tool call
// has a result), its active skills, re-read from disk in their activation
// order, and its usage totals per model (session.Session.UsageByModel; the
// order does not matter). Skills active before (always-on ones) are
// replaced by the session's. It returns a diagnostic for each skill that
// could not be restored; skills whose text changed on disk are restored with
// the new text and reported by [skills.ActiveSet.ChangedOnDisk]. Changes
// against the saved state are recorded.
func (a *Agent) Resume(ctx context.Context, history []providers.Message, active []session.SkillState, usage []providers.ModelUsage, recalled []string) []skills.Diagnostic {
	a.history = repairHistory(slices.Clone(history))
	a.anchors = nil
	a.sessionMsgs, a.lead = len(a.history), 0
	a.restoreUsage(usage)
	a.recalled = slices.Clone(recalled)
	// The deferred tools the session had called are in its tools array
	// again, in the order first called.
	a.found.add(calledTools(a.history)...)
	a.reported = 0
	a.nested = nil
	var diags []skills.Diagnostic
	saved := make([]skills.SnapshotEntry, len(active))
	for i, s := range active {
		saved[i] = skills.SnapshotEntry{Name: s.Name, Args: s.Args, Hash: s.Hash}
	}
	// The nested skill folders the session had found, before its skills
	// are restored: one of them may be active.
	a.resumeNestedSkills(ctx)
	if a.opts.Skills != nil {
		for _, act := range a.opts.Skills.List() {
			a.opts.Skills.Deactivate(act.Skill.Name)
		}
		if a.opts.SkillsEnabled {
			diags = a.opts.Skills.Restore(a.skillContext(ctx), saved)
		}
	}
	a.recordedSkills = saved
	a.syncSkills()
	a.anchors = resumedAnchors(a.history, a.opts.Skills)
	return diags
}

// resumedAnchors places the blocks of a resumed session's active skills
// among its history as the process that activated them did
// ([Agent.blockAnchors]): a skill the model activated with a Skill call
// still in the history comes right after the message holding that call's
// result (where the block first appeared, the request after the call);
// any other (activated by the user, always on, or activated before a
// compaction) comes first, before the history. Without this a resumed
// session — every `run --continue`, every turn of a serve replica on
// PostgreSQL — would move each block to the front, and the provider's
// prompt cache would lose the conversation after it once more.
func resumedAnchors(history []providers.Message, active *skills.ActiveSet) map[string]int {
	if active == nil {
		return nil
	}
	blocks, entries := active.Blocks(), active.Snapshot()
	if len(blocks) == 0 || len(blocks) != len(entries) {
		return nil
	}
	at := activationPlaces(history)
	anchors := make(map[string]int, len(blocks))
	for i, b := range blocks {
		anchors[b] = at[entries[i].Name] // 0 when the call is not in the history
	}
	return anchors
}

// activationPlaces returns, per skill name, the number of history messages
// before the block of the skill's last activation by a Skill call: the
// call's message and the message with its result.
func activationPlaces(history []providers.Message) map[string]int {
	at := map[string]int{}
	for i, m := range history {
		for _, c := range m.ToolCalls() {
			if c.Name != skillToolName {
				continue
			}
			var args struct {
				Skill  string `json:"skill"`
				Action string `json:"action"`
			}
			if json.Unmarshal([]byte(c.Args), &args) != nil || args.Skill == "" {
				continue
			}
			switch args.Action {
			case "search":
			case "deactivate":
				delete(at, args.Skill)
			default:
				at[args.Skill] = min(i+2, len(history))
			}
		}
	}
	return at
}

// todoPlace is where a resumed session's todo list block goes among the
// history on a wire that places blocks ([Agent.blockAnchors]): after the
// result of the last todo_write call, as the process that wrote it placed
// it; before the history when that call was compacted away.
func todoPlace(history []providers.Message) int {
	at := 0
	for i, m := range history {
		for _, c := range m.ToolCalls() {
			if c.Name == todoToolName {
				at = min(i+2, len(history))
			}
		}
	}
	return at
}

// ResumeSession restores a loaded session file with [Agent.Resume], and
// where the history stands among the session's messages, which the session
// summary's mark counts (sessionmemory.go): a message the repair added
// counts as one of them.
func (a *Agent) ResumeSession(ctx context.Context, s *session.Session) []skills.Diagnostic {
	diags := a.Resume(ctx, s.Messages, s.Skills, s.UsageByModel, s.Recalled)
	a.setTodos(s.Todos, false) // the file holds it already
	if t := a.todoBlock(); t != "" {
		if a.anchors == nil {
			a.anchors = map[string]int{}
		}
		a.anchors[t] = todoPlace(a.history)
	}
	a.lead = min(s.Lead, len(a.history))
	a.sessionMsgs = s.MessageRecords + len(a.history) - len(s.Messages)
	return diags
}
