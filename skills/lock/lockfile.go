package lock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/flock"
	"github.com/clawseed/clawseed/internal/tomltext"
)

// FileName is the lock file's name: <workspace>/.clawseed/skills.lock for
// the project's skills (.clawseed/skills/), $CLAWSEED_HOME/skills.lock
// for the user's ($CLAWSEED_HOME/skills/).
const FileName = "skills.lock"

// Version is the lock file format written and the only one read.
const Version = 1

// MaxFileBytes bounds a lock file read: a repository's lock is input.
const MaxFileBytes = 4 << 20

// An Entry is one installed skill. Its folder is the entry's Name inside
// the skills root next to the lock file.
type Entry struct {
	Name string `toml:"-"`
	// Source is the SOURCE given to `skills add`: a git URL, or a local
	// folder or repository as an absolute path.
	Source string `toml:"source"`
	// Ref is the --ref given ("" for the default branch, and for a local
	// folder).
	Ref string `toml:"ref"`
	// Commit is the commit resolved from Ref ("" for a local folder).
	Commit string `toml:"commit"`
	// Path is the skill's folder in the source, slash-separated ("" for
	// the source's top).
	Path string `toml:"path"`
	// Hash is the [TreeHash] of the folder as installed.
	Hash string `toml:"hash"`
}

// A File is a lock file's content: its entries sorted by name.
type File struct {
	Entries []Entry
}

// Lookup returns the entry of name, or nil.
func (f *File) Lookup(name string) *Entry {
	if f == nil {
		return nil
	}
	i := sort.Search(len(f.Entries), func(i int) bool { return f.Entries[i].Name >= name })
	if i < len(f.Entries) && f.Entries[i].Name == name {
		return &f.Entries[i]
	}
	return nil
}

// Put adds e, replacing the entry of the same name.
func (f *File) Put(e Entry) {
	if old := f.Lookup(e.Name); old != nil {
		*old = e
		return
	}
	f.Entries = append(f.Entries, e)
	sort.Slice(f.Entries, func(i, j int) bool { return f.Entries[i].Name < f.Entries[j].Name })
}

// Remove deletes the entry of name; it reports whether there was one.
func (f *File) Remove(name string) bool {
	for i, e := range f.Entries {
		if e.Name == name {
			f.Entries = append(f.Entries[:i], f.Entries[i+1:]...)
			return true
		}
	}
	return false
}

// ValidName reports whether name can be an entry's name, and so a folder
// in a skills root: letters, digits, '.', '_' and '-', starting with a
// letter or digit, at most 64 bytes.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Marshal is the lock file's text: a header comment, version = 1, then one
// [skills.NAME] table per entry in name order, every key always written in
// the same order, so that the same entries give the same bytes and a
// change of one skill is a change of its table only.
func Marshal(f *File) []byte {
	var b bytes.Buffer
	b.WriteString("# Written by clawseed skills add/update/remove; checked by clawseed skills verify.\n")
	fmt.Fprintf(&b, "version = %d\n", Version)
	entries := append([]Entry(nil), f.Entries...)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	for _, e := range entries {
		fmt.Fprintf(&b, "\n[skills.%s]\n", tableKey(e.Name))
		for _, kv := range [][2]string{{"source", e.Source}, {"ref", e.Ref}, {"commit", e.Commit}, {"path", e.Path}, {"hash", e.Hash}} {
			fmt.Fprintf(&b, "%s = %s\n", kv[0], tomltext.Quote(kv[1]))
		}
	}
	return b.Bytes()
}

// tableKey is name as a TOML key: bare when it can be ('.' needs quotes).
func tableKey(name string) string {
	if strings.Contains(name, ".") || !ValidName(name) {
		return tomltext.Quote(name)
	}
	return name
}

// An Error is a lock file that cannot be used; its text starts with
// file:line when a line is known.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// rawFile is the lock file's TOML shape.
type rawFile struct {
	Version int              `toml:"version"`
	Skills  map[string]Entry `toml:"skills"`
}

// Parse reads a lock file's text strictly: an unknown key, a wrong type, a
// missing or other version, an invalid name, hash, commit or path is an
// [*Error] naming path and line.
func Parse(path string, data []byte) (*File, error) {
	var raw rawFile
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{Path: path, Line: tomltext.ErrorLine(data, pe), Msg: pe.Message}
		}
		return nil, &Error{Path: path, Msg: err.Error()}
	}
	lines := tomltext.KeyLines(string(data))
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		k := undecoded[0].String()
		return nil, &Error{Path: path, Line: lines[k], Msg: fmt.Sprintf("unknown key %q", k)}
	}
	if !md.IsDefined("version") {
		return nil, &Error{Path: path, Line: 1, Msg: "no version (expected version = 1)"}
	}
	if raw.Version != Version {
		return nil, &Error{Path: path, Line: lines["version"], Msg: fmt.Sprintf("version %d is not supported (expected %d)", raw.Version, Version)}
	}
	f := &File{}
	for name, e := range raw.Skills {
		key := toml.Key{"skills", name}.String()
		line := lines[key]
		at := func(field string) int {
			if l, ok := lines[key+"."+field]; ok {
				return l
			}
			return line
		}
		e.Name = name
		if field, msg := e.check(); field != "" {
			if field == "name" {
				return nil, &Error{Path: path, Line: line, Msg: msg}
			}
			return nil, &Error{Path: path, Line: at(field), Msg: msg}
		}
		f.Entries = append(f.Entries, e)
	}
	sort.Slice(f.Entries, func(i, j int) bool { return f.Entries[i].Name < f.Entries[j].Name })
	return f, nil
}

// check is the one rule of what an entry may hold, for the entries read
// and those written ([Update] refuses to write what [Parse] would not
// read back): the field at fault and why, or "".
func (e Entry) check() (field, msg string) {
	switch {
	case !ValidName(e.Name):
		return "name", fmt.Sprintf("invalid skill name %q", e.Name)
	case e.Source == "" || !isLine(e.Source):
		return "source", fmt.Sprintf("skills.%s: source must be a non-empty line of UTF-8", e.Name)
	case !isLine(e.Ref):
		return "ref", fmt.Sprintf("skills.%s: ref must be a line of UTF-8", e.Name)
	case e.Commit != "" && !(len(e.Commit) == 40 || len(e.Commit) == 64) || !isLowerHex(e.Commit):
		return "commit", fmt.Sprintf("skills.%s: commit must be a full hex commit id or empty", e.Name)
	case !validPath(e.Path):
		return "path", fmt.Sprintf("skills.%s: path must be a relative slash path without . or .. parts", e.Name)
	case !validHash(e.Hash):
		return "hash", fmt.Sprintf("skills.%s: hash must be sha256:<64 hex digits>", e.Name)
	}
	return "", ""
}

// isLine reports whether s is valid UTF-8 without control characters.
func isLine(s string) bool { return utf8.ValidString(s) && !hasControl(s) }

// validPath reports whether p is "" or a clean relative slash path.
func validPath(p string) bool {
	if p == "" {
		return true
	}
	if !isLine(p) || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// Read reads the lock file at path; a missing file is an empty File and
// exists false.
func Read(path string) (f *File, exists bool, err error) {
	// Not through a link, and not a named pipe that would block: a
	// repository's lock file is input.
	file, err := confine.OpenNoFollow(path)
	if errors.Is(err, os.ErrNotExist) {
		return &File{}, false, nil
	}
	if err != nil {
		return nil, true, &Error{Path: path, Msg: "cannot be read (a lock file is a regular file, not a link): " + err.Error()}
	}
	defer file.Close()
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, true, &Error{Path: path, Msg: "not a regular file"}
	}
	data, err := readCapped(file, path)
	if err != nil {
		return nil, true, err
	}
	f, err = Parse(path, data)
	return f, true, err
}

func readCapped(file *os.File, path string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(file, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("larger than %d bytes", MaxFileBytes)}
	}
	return data, nil
}

// Update reads the lock file at path under its lock (the file
// .skills.lock.flock next to it, so that two clawseed processes never
// write one over the other's change), calls fn with its content, and
// writes the result atomically when fn returns nil. The folder of path is
// created when needed. fn runs with the lock held: it installs or removes
// the skill folders the entries name.
func Update(ctx context.Context, path string, fn func(*File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("lock file folder: %w", err)
	}
	unlock, err := flock.LockContext(ctx, filepath.Join(filepath.Dir(path), "."+FileName+".flock"))
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer unlock()
	f, _, err := Read(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		return err
	}
	for _, e := range f.Entries {
		if field, msg := e.check(); field != "" {
			return fmt.Errorf("%s not written: %s", path, msg)
		}
	}
	return atomicfile.Write(path, Marshal(f), 0o644)
}
