package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/tools/shellpolicy"
)

// A Sandbox confines the file tools to the workspace.
//
// Relative paths resolve against the workspace. A path is allowed only if it
// lies inside the workspace (for reads also inside one of ReadRoots or
// SkillDirs), both as
// written and after resolving symlinks — of the file if it exists, else of
// its deepest existing ancestor, following dangling links too — so neither
// `..` nor a link can leave it. Forbidden paths are refused even inside the
// workspace, by the rule of [confine.Forbidden] (which the files clawseed
// reads on its own go through as well): an entry that contains a whole
// allowed root does not apply inside that root.
//
// The error messages are sentences meant for the model.
type Sandbox struct {
	// Workspace is the absolute, already symlink-resolved workspace directory.
	Workspace string
	// AddDirs are folders added to the workspace (--add-dir): absolute,
	// links resolved; read and written as the workspace is.
	AddDirs []string
	// ReadRoots are extra directories that may be read but not written,
	// such as the memory directory.
	ReadRoots []string
	// SkillDirs are the discovered skill directories, readable but not
	// writable; nil means none.
	SkillDirs *DirSet
	// Forbidden are the [autonomy].forbidden_paths. A leading ~ is expanded
	// with Home; relative entries are relative to the workspace.
	Forbidden []string
	// Home is the user's home directory, used for ~ expansion.
	Home string
	// Control are the control paths (nil = none). The file tools may write
	// them (the agent asks first, with the content shown), but a shell
	// redirection checked by [autonomy].allowed_commands may not: a line
	// the allowlist passes can run unasked, and a write there would turn
	// model-written text into configuration or commands nobody approved.
	Control *ControlPaths
}

// shellFiles returns the sandbox as [autonomy].allowed_commands sees the
// files a command line opens ([shellpolicy.Files]); nil when sb is nil
// (no workspace).
func (sb *Sandbox) shellFiles() shellpolicy.Files {
	if sb == nil {
		return nil
	}
	return shellFiles{sb}
}

// shellFiles is [Sandbox.shellFiles]: the sandbox's rules, and no writes
// to a control path (see [Sandbox.Control]).
type shellFiles struct{ sb *Sandbox }

func (f shellFiles) Workspace() string {
	if f.sb.Workspace == "" {
		return ""
	}
	return f.sb.workspace()
}

func (f shellFiles) CheckOpen(p string, read bool) error {
	if read {
		_, err := f.sb.ResolveRead(p)
		return err
	}
	if _, err := f.sb.ResolveWrite(p); err != nil {
		return err
	}
	if name, ok := f.sb.Control.Match(p); ok {
		return refusal("It writes %s, which decides what clawseed runs or allows: a command line may not write there (file_write and file_edit can, after asking the user with the content shown).", name)
	}
	return nil
}

// ResolveRead returns the real (symlink-free) absolute path that p names, if
// it may be read.
func (sb *Sandbox) ResolveRead(p string) (string, error) { return sb.resolve(p, true) }

// ResolveWrite returns the real (symlink-free) absolute path that p names, if
// it may be written. The file need not exist.
func (sb *Sandbox) ResolveWrite(p string) (string, error) { return sb.resolve(p, false) }

// A pathRefusal is a [Sandbox] refusal. Its text is a whole sentence for the
// model, which is why it does not follow Go's lower-case error style.
type pathRefusal struct{ msg string }

func (e *pathRefusal) Error() string { return e.msg }

func refusal(format string, args ...any) error {
	return &pathRefusal{msg: fmt.Sprintf(format, args...)}
}

// A sandboxRoot is one directory the tools may use, as configured and with
// its symlinks resolved.
type sandboxRoot struct {
	lexical, real string
}

// pathRules is a snapshot of a Sandbox's roots and forbidden entries with
// their symlinks resolved, so that checking many paths (a directory walk)
// costs no system calls.
type pathRules struct {
	roots     []sandboxRoot
	dirs      *dirIndex // skill directories, for reads
	forbidden confine.Forbidden
}

// rules returns the snapshot for reads (workspace and read roots) or writes
// (workspace only).
func (sb *Sandbox) rules(read bool) *pathRules {
	r := &pathRules{roots: sb.roots(read), forbidden: sb.forbidden()}
	if read {
		r.dirs = sb.SkillDirs.index()
	}
	return r
}

// ForbiddenRule returns the resolved [autonomy].forbidden_paths, for the
// readers outside the file tools that apply them ([confine.Read]).
func (sb *Sandbox) ForbiddenRule() confine.Forbidden { return sb.forbidden() }

// forbidden returns the resolved [autonomy].forbidden_paths.
func (sb *Sandbox) forbidden() confine.Forbidden {
	return confine.NewForbidden(sb.Forbidden, sb.workspace(), sb.Home)
}

func (sb *Sandbox) resolve(p string, read bool) (string, error) {
	if sb == nil || sb.Workspace == "" {
		return "", refusal("No workspace is configured.")
	}
	if strings.TrimSpace(p) == "" {
		return "", refusal("Path must not be empty.")
	}
	if strings.ContainsRune(p, 0) {
		return "", refusal("Path must not contain NUL bytes.")
	}
	abs := sb.absolute(p)
	rules := sb.rules(read)

	root, ok := rules.root(abs, false)
	if !ok {
		root, ok = rules.root(abs, true)
	}
	if rules.isForbidden(abs, root, ok) {
		return "", refusal("Path %s is forbidden by [autonomy].forbidden_paths.", p)
	}
	if !ok {
		return "", sb.outsideError(p, abs, read)
	}

	real, err := realPath(abs)
	if err != nil {
		return "", refusal("Cannot resolve path %s: %v.", p, err)
	}
	root, ok = rules.root(real, true)
	if rules.isForbidden(real, root, ok) {
		return "", refusal("Path %s is forbidden by [autonomy].forbidden_paths.", p)
	}
	if !read && sb.inReadOnlyRoot(abs, real) {
		// A read root stays read-only where it lies inside the workspace
		// too: the memory folder is written by memory_store alone, which
		// keeps MEMORY.md equal to the files.
		return "", refusal("Path %s is in a read-only folder (%s); use the tool that owns it.", p, sb.readOnlyRootOf(abs, real))
	}
	if !ok {
		if !read && sb.inReadRoot(real) {
			return "", sb.outsideError(p, real, read)
		}
		return "", refusal("Path %s resolves to %s, which is outside the workspace (%s).", p, real, sb.workspace())
	}
	return real, nil
}

// root returns the root that contains p, comparing with the roots' resolved
// or configured paths.
func (r *pathRules) root(p string, real bool) (sandboxRoot, bool) {
	for _, root := range r.roots {
		dir := root.lexical
		if real {
			dir = root.real
		}
		if within(p, dir) {
			return root, true
		}
	}
	return r.dirs.lookup(p, real)
}

// isForbidden reports whether p lies under a forbidden entry, applying the
// rule of [confine.Forbidden] with the root p belongs to (when inRoot).
func (r *pathRules) isForbidden(p string, root sandboxRoot, inRoot bool) bool {
	if !inRoot {
		return r.forbidden.Covers(p)
	}
	return r.forbidden.Covers(p, root.lexical, root.real)
}

// readable reports whether the real path p may be read: inside a root and
// not forbidden.
func (r *pathRules) readable(p string) bool {
	root, ok := r.root(p, true)
	return ok && !r.isForbidden(p, root, true)
}

func (sb *Sandbox) outsideError(p, abs string, read bool) error {
	if !read && sb.inReadRoot(abs) {
		return refusal("Path %s is outside the workspace (%s); files there can be read but not written.", p, sb.workspace())
	}
	return refusal("Path %s is outside the workspace (%s).", p, sb.workspace())
}

// inReadOnlyRoot reports whether the path, lexically or resolved, lies in
// one of ReadRoots.
func (sb *Sandbox) inReadOnlyRoot(abs, real string) bool {
	return sb.readOnlyRootOf(abs, real) != ""
}

// readOnlyRootOf returns the read root holding the path, "" for none.
func (sb *Sandbox) readOnlyRootOf(abs, real string) string {
	for _, r := range sb.readRoots() {
		if within(abs, r.lexical) || within(abs, r.real) || within(real, r.lexical) || within(real, r.real) {
			return r.lexical
		}
	}
	return ""
}

func (sb *Sandbox) inReadRoot(abs string) bool {
	for _, r := range sb.readRoots() {
		if within(abs, r.lexical) || within(abs, r.real) {
			return true
		}
	}
	idx := sb.SkillDirs.index()
	_, lexical := idx.lookup(abs, false)
	_, real := idx.lookup(abs, true)
	return lexical || real
}

func (sb *Sandbox) workspace() string { return filepath.Clean(sb.Workspace) }

// absolute expands ~ and makes p absolute against the workspace, lexically.
func (sb *Sandbox) absolute(p string) string {
	if sb.Home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = filepath.Join(sb.Home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(sb.workspace(), p)
	}
	return filepath.Clean(p)
}

// roots returns the workspace first, then the added folders, then (for
// reads) the read roots.
func (sb *Sandbox) roots(read bool) []sandboxRoot {
	roots := sb.writeRoots()
	if read {
		roots = append(roots, sb.readRoots()...)
	}
	return roots
}

// writeRoots returns the workspace and the added folders.
func (sb *Sandbox) writeRoots() []sandboxRoot {
	ws := sb.workspace()
	roots := []sandboxRoot{{lexical: ws, real: realOrSelf(ws)}}
	for _, d := range sb.AddDirs {
		if d != "" && filepath.IsAbs(d) {
			d = filepath.Clean(d)
			roots = append(roots, sandboxRoot{lexical: d, real: realOrSelf(d)})
		}
	}
	return roots
}

// readRoots returns the read-only roots.
func (sb *Sandbox) readRoots() []sandboxRoot {
	var roots []sandboxRoot
	for _, r := range sb.ReadRoots {
		if r == "" {
			continue
		}
		abs := sb.absolute(r)
		roots = append(roots, sandboxRoot{lexical: abs, real: realOrSelf(abs)})
	}
	return roots
}

// within reports whether p is dir or lies beneath it ([confine.Within]).
func within(p, dir string) bool { return confine.Within(p, dir) }

func realOrSelf(p string) string { return confine.RealOrSelf(p) }

// realPath resolves every symlink in the absolute, clean path p
// ([confine.RealPath]).
func realPath(p string) (string, error) { return confine.RealPath(p) }

// display returns how a resolved path is shown to the model: relative to the
// workspace (with forward slashes) when inside it, else absolute.
func (sb *Sandbox) display(real string) string { return sb.displayFunc()(real) }

// displayFunc returns [Sandbox.display] with the workspace resolved once, for
// formatting many paths.
func (sb *Sandbox) displayFunc() func(real string) string {
	ws := realOrSelf(sb.workspace())
	return func(real string) string {
		if rel, err := filepath.Rel(ws, real); err == nil && within(real, ws) {
			return filepath.ToSlash(rel)
		}
		return real
	}
}

// writeFileAtomic writes data to real, a path returned by [Sandbox.ResolveWrite],
// creating parent directories, through [confine.WriteFile]: the folder is
// reached from the write root without following a link in any component,
// and the file as opened is checked again ([Sandbox.checkWrite]) before a
// byte is written, so a link swapped in after the call was approved or the
// path resolved cannot lead the write anywhere the rules refuse. It writes
// a temporary file next to the target and renames it over the target. An
// existing file keeps its permissions.
//
// This is the one writer of the file tools' writes (file_write,
// file_edit); ctx is the call's, which says which control paths the user
// approved it to write ([permissions.WithApprovedWrites]).
func (sb *Sandbox) writeFileAtomic(ctx context.Context, real string, data []byte) error {
	ws := ""
	for _, r := range sb.writeRoots() {
		if within(real, r.real) {
			ws = r.real
			break
		}
	}
	rel, err := filepath.Rel(ws, real)
	if ws == "" || err != nil || rel == "." {
		return fmt.Errorf("path %s is not a file inside the workspace", real)
	}
	err = confine.WriteFile(ws, rel, data, func(p string) error { return sb.checkWrite(ctx, p) })
	if r, ok := errors.AsType[*pathRefusal](err); ok {
		return r // a sentence for the model, as it is
	}
	return err
}

// checkWrite applies the write rules to the file p as the writer opened
// it (absolute, no link on its way), at the moment of the write: inside a
// write root, outside forbidden_paths and the read-only roots, and not a
// control path unless the call was asked about that control path and
// approved. The control-path rule is [ControlPaths.Match], the one the
// approval applied.
func (sb *Sandbox) checkWrite(ctx context.Context, p string) error {
	rules := sb.rules(false)
	root, ok := rules.root(p, true)
	if !ok {
		return refusal("Path %s is outside the workspace (%s); nothing was written.", p, sb.workspace())
	}
	if rules.isForbidden(p, root, true) {
		return refusal("Path %s is forbidden by [autonomy].forbidden_paths; nothing was written.", sb.display(p))
	}
	if sb.inReadOnlyRoot(p, p) {
		return refusal("Path %s is in a read-only folder (%s); nothing was written.", sb.display(p), sb.readOnlyRootOf(p, p))
	}
	if name, ok := sb.Control.Match(p); ok && !permissions.WriteApproved(ctx, name) {
		return refusal("The write would land in %s (%s), which decides what clawseed runs or allows, and this call was not approved to write there: a link on its path changed after the call was approved. Nothing was written.", sb.display(p), name)
	}
	return nil
}

// readChecked reads a path the sandbox resolved and checked, through
// [confine.Read]: still a regular file (a FIFO swapped in since the check
// cannot block the tool) and never more than max bytes, however the file
// grows.
func readChecked(real string, max int64) ([]byte, error) {
	return confine.Read(real, confine.Options{Unconfined: true, Max: max})
}

// ConfineOptions returns the [confine.Options] for reading a file that the
// workspace supplies to clawseed itself (an identity file, an @file
// reference): inside the workspace, outside forbidden_paths, at most max
// bytes — the read check of the file tools, plus the file-type and size
// checks of [confine.Read].
func (sb *Sandbox) ConfineOptions(max int64) confine.Options {
	return confine.Options{Roots: []string{sb.workspace()}, Forbidden: sb.forbidden(), Max: max}
}
