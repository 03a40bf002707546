package skills

import (
	"context"
	"fmt"
	"strings"
)

// prepareEntry is the one preparation of a skill for the set, shared by
// Activate, Prepare, Refresh and Restore: it reads s with c.Load (row 6 of
// §4.5), renders its content for args (see render: dynamic context,
// argument substitution, @file inlining), checks its permissions (row 7),
// and builds the entry with its hashes and its <active_skill> block. It
// returns the entry, or why it cannot be used in the words of §4.5, which
// the caller wraps.
//
// It runs without the set's lock: loading and commands may be slow, and
// Render is called before every model request. c is the caller's copy of
// the set's configuration, taken under the lock with s, so a concurrent
// SetSessionID changes neither; the caller commits the entry under the
// lock.
func (c *ActiveConfig) prepareEntry(ctx context.Context, name string, s *Skill, args string) (activeEntry, string) {
	loaded, err := c.load(name, s)
	var content string
	var extras []string
	if err == nil {
		content, extras, err = c.render(ctx, loaded, args)
	}
	if err != nil {
		return activeEntry{}, "Failed to load skill '" + name + "': " + err.Error()
	}
	if c.CheckPermissions != nil {
		if text := c.CheckPermissions(name, loaded.Permissions); text != "" {
			return activeEntry{}, text
		}
	}
	e := activeEntry{Active: Active{
		Skill:    loaded,
		Args:     args,
		Content:  content,
		Hash:     contentHash(loaded.Body, extras),
		BodyHash: ContentHash(loaded.Body),
	}}
	e.block = renderBlock(e.Active)
	return e, ""
}

// load reads s with c.Load, under the name it is activated as.
func (c *ActiveConfig) load(name string, s *Skill) (*Skill, error) {
	loaded := s
	if c.Load != nil {
		l, err := c.Load(s)
		if err != nil {
			return nil, err
		}
		if l != nil {
			loaded = l
		}
	} else {
		l, err := withBody(s)
		if err != nil {
			return nil, err
		}
		loaded = l
	}
	if loaded.Name != name {
		// The set is keyed by the name the skill was activated under, even if
		// the file now on disk says otherwise.
		cp := *loaded
		cp.Name = name
		loaded = &cp
	}
	return loaded, nil
}

// withBody returns s with its body: s itself when it has it (or has none),
// else s read again from disk ([Reread]), as a discovered catalog keeps
// no bodies (Skill.Body).
func withBody(s *Skill) (*Skill, error) {
	if s.Body != "" || s.BodySize == 0 {
		return s, nil
	}
	return Reread(s, 0)
}

// render returns the content of s activated with args — dynamic context run
// (when allowed), arguments substituted in the text between the commands,
// @file references inlined for commands — and what beyond the body the
// content depends on (command output, inlined files), for the hash.
//
// The order is what keeps the arguments, which the model chooses, out of
// every command: the body is split into commands before anything is
// substituted, commands see the arguments only as $ARGUMENTS in their
// environment, and their output is inserted as it is, never substituted or
// scanned for @file again.
func (c *ActiveConfig) render(ctx context.Context, s *Skill, args string) (string, []string, error) {
	segs := ParseDynamic(s.Body)
	var outputs, extras []string
	if hasDynamic(segs) && c.RunCommand != nil && !commandsRefused(ctx) {
		if ok, _ := DynamicAllowed(c.DynamicContext, c.UntrustedWorkspace, s); ok {
			var err error
			if outputs, err = c.runDynamic(ctx, s, segs, args); err != nil {
				return "", nil, err
			}
		}
	}
	vars := map[string]string{
		VarSkillDir:  s.Dir,
		VarSessionID: c.SessionID,
		VarWorkspace: c.Workspace,
	}
	if s.PluginDir != "" {
		vars[VarPluginRoot] = s.PluginDir
	}
	sub := newSubstituter(args, s.Arguments, vars)
	files := newAtFiles("", c.Forbidden)
	if s.Command {
		files = newAtFiles(c.Workspace, c.Forbidden)
	}
	var b strings.Builder
	for i, seg := range segs {
		switch {
		case seg.Kind == SegmentText:
			b.WriteString(files.inline(sub.text(seg.Text)))
		case outputs != nil:
			b.WriteString(outputs[i])
			extras = append(extras, outputs[i])
		default: // refused: left as written
			b.WriteString(seg.Text)
		}
	}
	content := appendNote(b.String(), files.inline(sub.argsNote()))
	return content, append(extras, files.contents...), nil
}

// contentHash is [ContentHash] of body when extras is empty, else of body
// and each extra, length-prefixed so that no two lists hash alike.
func contentHash(body string, extras []string) string {
	if len(extras) == 0 {
		return ContentHash(body)
	}
	var b strings.Builder
	b.WriteString(body)
	for _, e := range extras {
		fmt.Fprintf(&b, "\x00%d\x00%s", len(e), e)
	}
	return ContentHash(b.String())
}
