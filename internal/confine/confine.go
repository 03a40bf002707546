// Package confine reads the files clawseed reads because a repository put
// them there — identity files, the project config, .mcp.json, skills and
// commands, @file references — and the files clawseed keeps for the user
// (config, memory), without letting such a file widen what is read or stall
// the process:
//
//   - it must be a regular file: a FIFO (which would block), a device
//     (/dev/zero never ends; opening some has side effects) or a directory
//     is refused before it is opened, and again on the opened handle, which
//     is opened non-blocking;
//   - it must be at most [Options.Max] bytes, checked on the opened handle
//     before reading, and at most Max+1 bytes are ever read, so a file that
//     grows while it is read, or a /proc-like file that reports the wrong
//     size, is still bounded;
//   - its real path (all symbolic links resolved; of the opened handle where
//     the platform says, /proc/self/fd on Linux) must lie inside one of
//     [Options.Roots], and neither the path as given nor the real one may be
//     under a [Forbidden] entry.
//
// The forbidden_paths rule ([Forbidden]) lives here, and the file tools'
// sandbox uses it too, so both apply the same rule.
//
// [WriteFile] and [WriteEntry] are the other direction: the one writer of
// the file tools (and backup's restore), which reaches a file's folder
// without following links and lets the caller check the file as opened,
// so a check made before the write still holds where the bytes land.
package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
)

// The size caps of the files read through this package, in one place. Skill
// files (SKILL.md, manifest.toml, command files, plugin.json) have their own
// cap, [skills].max_skill_file_bytes, since the user may raise it.
const (
	// MaxIdentityFile caps each of SOUL.md, AGENTS.md and the other
	// identity files; the prompt keeps the first 20,000 characters of it.
	MaxIdentityFile = 256 << 10
	// MaxInstructionFile caps each project instruction file (CLAUDE.md,
	// AGENTS.md, their imports, rules); the prompt keeps at most
	// [instructions].max_file_bytes of it, which may not exceed this.
	MaxInstructionFile = 256 << 10
	// MaxConfigFile caps config.toml (user, project and --config).
	MaxConfigFile = 1 << 20
	// MaxMCPJSON caps the workspace's .mcp.json.
	MaxMCPJSON = 1 << 20
	// MaxSettingsJSON caps Claude Code's settings.json files,
	// installed_plugins.json and a plugin's hooks/hooks.json.
	MaxSettingsJSON = 1 << 20
	// MaxAtFile caps one file a command's @path inlines; MaxAtFiles all of
	// one activation.
	MaxAtFile  = 64 << 10
	MaxAtFiles = 256 << 10
	// MaxMemoryFile caps a memory file and MEMORY.md.
	MaxMemoryFile = 1 << 20
	// MaxAgentFile caps a subagent definition (.claude/agents/*.md): its
	// body is the subagent's system prompt.
	MaxAgentFile = 256 << 10
	// MaxScanFile caps each file `clawseed skills scan` reads (a larger
	// one is a finding, not read); MaxScanSkill all of one skill's files,
	// MaxScanFiles their number.
	MaxScanFile  = 16 << 20
	MaxScanSkill = 64 << 20
	MaxScanFiles = 10000
)

// Options say which files [Read] accepts.
type Options struct {
	// Roots are the directories the file's real path must lie in: the
	// workspace, or the skill root a skill file belongs to. Both a root as
	// given and its real path count. None means no file is accepted, unless
	// Unconfined is set.
	Roots []string
	// Unconfined skips Roots and Forbidden, for a file that is the user's
	// own (their config in $CLAWSEED_HOME, --config), which may be a link
	// to anywhere since dotfile managers link such files from elsewhere, and
	// for a path the file tools' sandbox has already resolved and checked.
	// The file must still be a regular file within Max.
	Unconfined bool
	// Forbidden are the [autonomy].forbidden_paths.
	Forbidden Forbidden
	// Max is the largest size accepted, in bytes. It must be positive.
	Max int64
}

// A Reason says why [Read] refused a file.
type Reason int

const (
	// NotRegular: a FIFO, device, socket or directory.
	NotRegular Reason = iota + 1
	// TooLarge: larger than Options.Max, when opened or while read.
	TooLarge
	// Outside: the real path is outside every root.
	Outside
	// IsForbidden: under an [autonomy].forbidden_paths entry.
	IsForbidden
)

// A Refusal is the error of a file [Read] does not accept. Callers show it
// as a warning and go on without the file.
type Refusal struct {
	Path   string // absolute
	Reason Reason
	// Real is the real path when it differs from Path (Outside and
	// IsForbidden).
	Real string
	// Root is the first root, for Outside.
	Root string
	// Size is the size found (-1: the file grew while it was read), Max the
	// cap, for TooLarge.
	Size, Max int64
}

func (r *Refusal) Error() string { return r.Path + ": " + r.Why() }

// Why says what is wrong with the file, without naming it: "not a regular
// file", "resolves to /etc/passwd, outside /ws" and the like.
func (r *Refusal) Why() string {
	switch r.Reason {
	case NotRegular:
		return "not a regular file"
	case TooLarge:
		if r.Size < 0 {
			return "grew past " + sizeText(r.Max) + " while it was read"
		}
		return fmt.Sprintf("larger than %s (%d bytes)", sizeText(r.Max), r.Size)
	case Outside:
		if r.Root == "" {
			return "outside every folder it may be read from"
		}
		return fmt.Sprintf("resolves to %s, outside %s", r.Real, r.Root)
	case IsForbidden:
		if r.Real != "" && r.Real != r.Path {
			return fmt.Sprintf("resolves to %s, which is in [autonomy].forbidden_paths", r.Real)
		}
		return "in [autonomy].forbidden_paths"
	}
	return "refused"
}

// Why returns [Refusal.Why] of a refusal, else err's text without the path
// an *fs.PathError carries.
func Why(err error) string {
	if r, ok := errors.AsType[*Refusal](err); ok {
		return r.Why()
	}
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// sizeText prints a cap as KiB or MiB.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// IsRefusal reports whether err is a [Refusal] (rather than a missing file
// or an I/O error).
func IsRefusal(err error) bool {
	_, ok := errors.AsType[*Refusal](err)
	return ok
}

// Read returns the contents of the file at path if opt accepts it (see the
// package comment). A missing file is an error for which errors.Is(err,
// fs.ErrNotExist) holds; a file opt does not accept is a *[Refusal]; other
// errors are I/O errors naming path.
func Read(path string, opt Options) ([]byte, error) {
	data, _, err := ReadInfo(path, opt)
	return data, err
}

// ReadInfo is [Read] that also returns the file's information as found
// before it was opened (for a modification-time stamp).
func ReadInfo(path string, opt Options) ([]byte, fs.FileInfo, error) {
	if opt.Max <= 0 {
		return nil, nil, fmt.Errorf("read %s: no size limit given", path)
	}
	abs, err := filepath.Abs(path) // relative to the current directory, like os.Open
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	path = abs
	if !opt.Unconfined {
		if len(opt.Roots) == 0 {
			return nil, nil, &Refusal{Path: path, Reason: Outside}
		}
		if opt.Forbidden.coversIn(path, opt.Roots) {
			return nil, nil, &Refusal{Path: path, Reason: IsForbidden}
		}
	}
	h, fi, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer h.Close()
	if !opt.Unconfined {
		real, err := h.realPath()
		if err != nil {
			return nil, nil, fmt.Errorf("resolve %s: %w", path, err)
		}
		if !inAnyRoot(real, opt.Roots) {
			return nil, nil, &Refusal{Path: path, Reason: Outside, Real: real, Root: absPath(opt.Roots[0])}
		}
		if opt.Forbidden.coversIn(real, opt.Roots) {
			return nil, nil, &Refusal{Path: path, Reason: IsForbidden, Real: real}
		}
	}
	if size := h.size(); size > opt.Max {
		return nil, nil, &Refusal{Path: path, Reason: TooLarge, Size: size, Max: opt.Max}
	}
	data, err := readAtMost(h, h.size(), opt.Max)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > opt.Max {
		return nil, nil, &Refusal{Path: path, Reason: TooLarge, Size: -1, Max: opt.Max}
	}
	return data, fi, nil
}

// Head returns at most n bytes from the start of path, opened as [Read]
// opens it (a regular file only, checked before opening and on the
// non-blocking handle: a FIFO or a device is never opened), with no root
// or size check: the caller has resolved and checked path (a file tool's
// sniff of a file's type before it reads it whole).
func Head(path string, n int) ([]byte, error) {
	h, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	buf := make([]byte, n)
	got, err := io.ReadFull(h, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf[:got], nil
}

// readAtMost reads r to its end, but never more than limit+1 bytes: one
// byte past the limit says the file is too large. size is the size the file
// reported: when it is positive, a short read once that much has been read
// is its end (a regular file returns less than asked only there), which
// saves a read per file; a file that grew fills the buffer instead and is
// read on.
func readAtMost(r io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(max(size, 0), limit)+1)
	lr := io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		want := cap(buf) - len(buf)
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, err
		case size > 0 && n > 0 && n < want && int64(len(buf)) >= size:
			return buf, nil
		}
	}
}

// inAnyRoot reports whether the real path p lies in one of roots, as given
// or resolved (resolved only when needed: callers usually pass real roots).
func inAnyRoot(p string, roots []string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		r = absPath(r)
		if Within(p, r) || Within(p, RealOrSelf(r)) {
			return true
		}
	}
	return false
}

// absPath makes a root absolute (relative to the current directory) and
// clean.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
