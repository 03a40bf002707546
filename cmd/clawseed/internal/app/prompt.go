package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/skills"
)

// A PromptError is a slash prompt that cannot be sent: an MCP prompt that
// could not be fetched, or a skill that is not user-invocable. The request
// is at fault; its message says why.
type PromptError struct{ Err error }

func (e *PromptError) Error() string { return e.Err.Error() }

func (e *PromptError) Unwrap() error { return e.Err }

// A SkillError is a user-invocable skill that a prompt named and that could
// not be activated; its message is the activation's.
type SkillError struct{ Msg string }

func (e *SkillError) Error() string { return e.Msg }

// Prompt returns the message a prompt sends (`run`'s). A prompt that is a
// slash command by [repl.ParseSlash]'s rule and names a known command runs
// it: "/mcp__server__prompt args" is expanded with the server's prompt,
// "/name args" activates the user-invocable skill name with args (§4.9).
// Any other prompt is sent as it is (issue 20, item 18): one starting with
// a path ("/etc/hosts: what is this?") and one whose NAME is no skill or
// command ("/tmp is full, why?"); for the latter a notice says so, with the
// closest skill name when there is one, so a mistyped skill shows. A skill
// that exists but cannot be invoked (hidden by a gate, not user-invocable)
// is a [PromptError] that says why, one that fails to activate a
// [SkillError].
func (s *Session) Prompt(ctx context.Context, prompt string, notices io.Writer) (string, error) {
	name, args, ok := repl.ParseSlash(prompt)
	switch {
	case !ok:
		return prompt, nil
	case s.mcp != nil && strings.HasPrefix(name, mcp.Prefix):
		s.mcp.Wait(ctx)
		text, err := s.mcp.GetPrompt(ctx, name, args)
		if err != nil {
			return "", &PromptError{Err: err}
		}
		return text, nil
	}
	if !knownSkill(s.agent, name) && s.mcp != nil {
		// It may be a skill of a server that was still starting when the
		// catalog was made (server:skill): catch up, as a request would.
		_, _ = s.agent.ReloadSkills(ctx)
	}
	if !knownSkill(s.agent, name) {
		msg := fmt.Sprintf("clawseed: /%s is not a skill or command; sent as text", name)
		if m := skills.Suggest(name, invocableNames(s.agent)); m != "" {
			msg += fmt.Sprintf(" (did you mean /%s?)", m)
		}
		fmt.Fprintln(notices, termtext.EscapeLine(msg))
		return prompt, nil
	}
	return invokeSkillPrompt(ctx, s.agent, name, args)
}

// knownSkill reports whether the session's catalog has a skill called name,
// invocable or not.
func knownSkill(ag *agent.Agent, name string) bool {
	set := ag.Skills()
	return set != nil && set.Catalog().Lookup(name) != nil
}

// invocableNames lists the skills a user may invoke with /NAME.
func invocableNames(ag *agent.Agent) []string {
	var names []string
	if set := ag.Skills(); set != nil {
		for _, c := range set.Catalog().Skills {
			if c.UserInvocable && c.Status != skills.StatusHidden {
				names = append(names, c.Name)
			}
		}
	}
	return names
}

// invokeSkillPrompt activates the user-invocable skill name with args,
// which then become the user message.
func invokeSkillPrompt(ctx context.Context, ag *agent.Agent, name, args string) (string, error) {
	var s *skills.Skill
	if set := ag.Skills(); set != nil {
		s = set.Catalog().Lookup(name)
	}
	// A hidden (gated) skill goes on to the activation, which says why.
	if s == nil || !s.UserInvocable {
		msg := fmt.Sprintf("/%s is not a user-invocable skill", name)
		if m := skills.Suggest(name, invocableNames(ag)); m != "" && m != name {
			msg += fmt.Sprintf("; did you mean /%s?", m)
		}
		return "", &PromptError{Err: fmt.Errorf("%s (see clawseed skills list)", msg)}
	}
	send, out := ag.InvokeSkill(ctx, name, args)
	if send == "" {
		return "", &SkillError{Msg: out.Text}
	}
	return send, nil
}
