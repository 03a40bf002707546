package trust

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/nesting"
	"github.com/clawseed/clawseed/internal/tomltext"
)

// A FileError is a problem in the trust file: `path:LINE: key: message`
// (the line is left out when it is not known).
type FileError struct {
	Path string
	Line int
	Key  string
	Msg  string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// readEntries reads the trust file at path; a missing file has no entries.
func readEntries(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trust store: %w", err)
	}
	return parse(path, data)
}

// parse decodes a trust file. Every problem is a *FileError; entries come
// back sorted, with clean paths and times in UTC to the second (as written).
func parse(path string, data []byte) ([]Entry, error) {
	// The decoder's cost explodes with nesting depth; refuse it first.
	if err := nesting.CheckTOML(data); err != nil {
		fe := &FileError{Path: path, Msg: err.Error()}
		var ne *nesting.Error
		if errors.As(err, &ne) {
			fe.Line = ne.Line
		}
		return nil, fe
	}
	var tree map[string]any
	md, err := toml.Decode(string(data), &tree)
	if err != nil {
		return nil, syntaxError(path, data, err)
	}
	lines := tomltext.KeyLines(string(data))
	for _, k := range md.Keys() {
		if len(k) == 1 && k[0] != "workspace" {
			return nil, &FileError{Path: path, Line: lines[k.String()], Key: k[0], Msg: "unknown key (the file holds only [[workspace]] entries)"}
		}
	}
	raw, ok := tree["workspace"]
	if !ok {
		return nil, nil
	}
	tables, ok := asTables(raw)
	if !ok {
		return nil, &FileError{Path: path, Line: lines["workspace"], Key: "workspace", Msg: "expected [[workspace]] entries, got " + typeName(raw)}
	}
	var entries []Entry       // nil for `workspace = []`, as for no entries
	first := map[string]int{} // path → line of its entry
	for i, t := range tables {
		at := func(key string) int { return entryLine(lines, i, key) }
		e, err := entryOf(t, func(key, msg string) error {
			name := "workspace"
			if key != "" {
				name += "." + key
			}
			return &FileError{Path: path, Line: at(key), Key: name, Msg: msg}
		})
		if err != nil {
			return nil, err
		}
		if l, dup := first[e.Path]; dup {
			msg := fmt.Sprintf("%s is listed twice (first at line %d)", strconv.Quote(e.Path), l)
			return nil, &FileError{Path: path, Line: at("path"), Key: "workspace.path", Msg: msg}
		}
		first[e.Path] = at("path")
		entries = append(entries, e)
	}
	sortEntries(entries)
	return entries, nil
}

// entryLine is the line of key (in toml.Key.String form: "files.\".mcp.json\"")
// in the i-th [[workspace]] entry, else of its first part there, else of
// the entry's header, else of the first workspace key (an inline array of
// tables, whose elements have no header); 0 when unknown.
func entryLine(lines map[string]int, i int, key string) int {
	elem := "workspace[" + strconv.Itoa(i) + "]"
	if l, ok := lines[elem+"."+key]; ok && key != "" {
		return l
	}
	if first, _, dotted := strings.Cut(key, "."); dotted {
		if l, ok := lines[elem+"."+first]; ok {
			return l
		}
	}
	if l, ok := lines[elem]; ok {
		return l
	}
	return lines["workspace"]
}

// entryOf checks one [[workspace]] table; fail builds the error for a key
// (in toml.Key.String form, "" for the entry).
func entryOf(t map[string]any, fail func(key, msg string) error) (Entry, error) {
	var e Entry
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "path" && k != "recursive" && k != "trusted" && k != "files" {
			return e, fail(toml.Key{k}.String(), "unknown key (a [[workspace]] has path, recursive, trusted and files)")
		}
	}
	p, ok := t["path"].(string)
	switch {
	case t["path"] == nil:
		return e, fail("", "an entry without a path (every [[workspace]] needs path = \"/the/folder\")")
	case !ok:
		return e, fail("path", "expected a string, got "+typeName(t["path"]))
	case !filepath.IsAbs(p):
		return e, fail("path", strconv.Quote(p)+" is not an absolute path")
	}
	e.Path = filepath.Clean(p)
	if r, ok := t["recursive"]; ok {
		if e.Recursive, ok = r.(bool); !ok {
			return e, fail("recursive", "expected true or false, got "+typeName(r))
		}
	}
	tm, ok := t["trusted"].(time.Time)
	switch {
	case t["trusted"] == nil:
		return e, fail("", "an entry without the time trust was given (trusted = 2026-11-23T14:00:00Z)")
	case !ok:
		return e, fail("trusted", "expected a date and time, got "+typeName(t["trusted"]))
	case isLocal(tm):
		return e, fail("trusted", "a date and time with an offset is needed, like 2026-11-23T14:00:00Z")
	}
	e.Trusted = tm.UTC().Truncate(time.Second)
	if y := e.Trusted.Year(); y < 1 || y > 9999 {
		return e, fail("trusted", "the year is out of range")
	}
	if raw, ok := t["files"]; ok {
		files, err := filesOf(raw, e.Recursive, fail)
		if err != nil {
			return e, err
		}
		e.Files = files
	}
	return e, nil
}

// filesOf checks an entry's files table: the recorded state of some of
// [ProjectFiles]. An empty table is no record (nil), as when it is left out.
func filesOf(raw any, recursive bool, fail func(key, msg string) error) (map[string]string, error) {
	t, ok := raw.(map[string]any)
	switch {
	case !ok:
		return nil, fail("files", "expected a table of file states, got "+typeName(raw))
	case recursive && len(t) > 0:
		return nil, fail("files", "a recursive entry records no files (it trusts folders nobody looked at)")
	}
	names := make([]string, 0, len(t))
	for k := range t {
		names = append(names, k)
	}
	slices.Sort(names)
	var out map[string]string
	for _, name := range names {
		key := toml.Key{"files", name}.String()
		if !isProjectFile(name) {
			return nil, fail(key, "not a project file trust records (those are "+strings.Join(ProjectFiles(), ", ")+")")
		}
		v, ok := t[name].(string)
		if !ok || !validState(v) {
			got := typeName(t[name])
			if ok {
				got = strconv.Quote(v)
			}
			return nil, fail(key, `expected "absent" or "sha256:" and 64 lowercase hex digits, got `+got)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = v
	}
	return out, nil
}

// isLocal reports whether t came from a TOML date or time without an
// offset: the decoder marks those with zones of these names.
func isLocal(t time.Time) bool {
	switch t.Location().String() {
	case "datetime-local", "date-local", "time-local":
		return true
	}
	return false
}

// asTables returns v as a list of tables: [[workspace]] decodes to
// []map[string]any, an inline array of tables to []any.
func asTables(v any) ([]map[string]any, bool) {
	switch v := v.(type) {
	case []map[string]any:
		return v, true
	case []any:
		out := make([]map[string]any, 0, len(v))
		for _, x := range v {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	return nil, false
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case time.Time:
		return "a date or time"
	case []map[string]any, []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

func syntaxError(path string, data []byte, err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &FileError{Path: path, Msg: err.Error()}
	}
	return &FileError{Path: path, Line: tomltext.ErrorLine(data, pe), Key: pe.LastKey, Msg: pe.Message}
}

// fileHeader opens every trust file clawseed writes.
const fileHeader = `# Workspaces clawseed trusts: their project config and project skills that
# run commands apply. Change it with "clawseed trust [--recursive] DIR" and
# "clawseed trust --revoke DIR"; list it with "clawseed trust --list".
# An entry's files are its project files as they were when it was trusted:
# when one changes, the workspace is no longer trusted until trusted again.
`

// encode writes entries (sorted) in the one form clawseed uses, so that
// the same entries always give the same bytes.
func encode(entries []Entry) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(fileHeader)
	for _, e := range entries {
		t := e.Trusted.UTC()
		if y := t.Year(); y < 1 || y > 9999 {
			return nil, fmt.Errorf("%s: trust time %s is out of range", e.Path, t)
		}
		fmt.Fprintf(&b, "\n[[workspace]]\npath = %s\nrecursive = %t\ntrusted = %s\n",
			tomltext.Quote(e.Path), e.Recursive, t.Format(time.RFC3339))
		for _, name := range ProjectFiles() { // sorted: the same bytes every time
			if st, ok := e.Files[name]; ok {
				fmt.Fprintf(&b, "files.%s = %s\n", toml.Key{name}.String(), tomltext.Quote(st))
			}
		}
	}
	return b.Bytes(), nil
}
