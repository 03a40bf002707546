package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// A SnapshotEntry records one active skill in a session file.
type SnapshotEntry struct {
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
	Hash string `json:"hash"`
}

// Snapshot returns the active set for the session file, in activation order.
func (a *ActiveSet) Snapshot() []SnapshotEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]SnapshotEntry, len(a.active))
	for i, e := range a.active {
		out[i] = SnapshotEntry{Name: e.Skill.Name, Args: e.Args, Hash: e.Hash}
	}
	return out
}

// Restore re-activates the skills of a snapshot in order, as the user would
// (so user-only skills come back too), reading them from disk again. It returns
// a warning diagnostic for each skill that could not be restored. Skills whose
// text differs from the snapshot's hash are restored with their new text and
// reported by [ActiveSet.ChangedOnDisk]. Each skill is restored as one
// activation (see [ActiveSet]): the set's lock is not held across them.
func (a *ActiveSet) Restore(ctx context.Context, entries []SnapshotEntry) []Diagnostic {
	var diags []Diagnostic
	for _, e := range entries {
		if d, ok := a.restore(ctx, e); !ok {
			diags = append(diags, d)
		}
	}
	return diags
}

// restore activates the skill of e and records e's hash on it, or returns
// why it could not.
func (a *ActiveSet) restore(ctx context.Context, e SnapshotEntry) (Diagnostic, bool) {
	release := a.claim(e.Name)
	defer release()
	out := a.activate(ctx, e.Name, e.Args, true)
	a.mu.Lock()
	defer a.mu.Unlock()
	if pos := a.index(e.Name); pos >= 0 && a.active[pos].Args == e.Args {
		a.active[pos].snapHash = e.Hash
	}
	if !out.IsError {
		return Diagnostic{}, true
	}
	var path string
	if s := a.cat.Lookup(e.Name); s != nil {
		path = s.Dir
	}
	return Diagnostic{
		Path:     path,
		Severity: SeverityWarning,
		Message:  fmt.Sprintf("active skill %q not restored: %s", e.Name, out.Text),
	}, false
}

// ChangedOnDisk reports whether the active skill called name has changed on
// disk: its text when restored differs from the one recorded in the snapshot,
// or the text on disk now (read with ActiveConfig.Load, or the catalog's when
// Load is nil) differs from the one activated. A skill that can no longer be
// read counts as changed; one that is not active does not.
func (a *ActiveSet) ChangedOnDisk(name string) bool {
	a.mu.Lock()
	pos := a.index(name)
	if pos < 0 {
		a.mu.Unlock()
		return false
	}
	e := a.active[pos]
	cat, load := a.cat, a.cfg.Load
	a.mu.Unlock()

	if e.snapHash != "" && e.snapHash != e.Hash {
		return true
	}
	s := cat.Lookup(name)
	if load == nil {
		if s == nil {
			return false
		}
		now, err := withBody(s)
		return err != nil || ContentHash(now.Body) != e.BodyHash
	}
	if s == nil {
		s = e.Skill
	}
	now, err := load(s)
	if err != nil {
		return true
	}
	return now != nil && ContentHash(now.Body) != e.BodyHash
}

// ContentHash returns the first 16 hex digits of the SHA-256 of body; it
// identifies a skill's text in session files.
func ContentHash(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:8])
}

// FileHash identifies a skill file's content: the SHA-256 of data in hex,
// "" for nil (no file). It is the whole hash, not [ContentHash]'s prefix:
// an approval of one content must not be reusable for another with a
// colliding prefix.
func FileHash(data []byte) string {
	if data == nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
