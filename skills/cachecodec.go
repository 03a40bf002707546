package skills

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/internal/claudesettings"
)

// The binary codec of the discovery cache file (cachefile.go). Every value
// is written in a fixed order with varint lengths; the reader checks every
// length against what is left, so a damaged file is an error, never a panic
// or a huge allocation.

var errCacheCorrupt = errors.New("corrupt cache")

type cacheWriter struct{ b []byte }

func (w *cacheWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *cacheWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *cacheWriter) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }

func (w *cacheWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// strs writes a list keeping nil apart from empty: cold and warm catalogs
// must be equal, and JSON output tells the two apart.
func (w *cacheWriter) strs(list []string) {
	if list == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(list)) + 1)
	for _, s := range list {
		w.str(s)
	}
}

// A cacheReader decodes from one string holding the whole file, so every
// decoded string shares its memory instead of being copied.
type cacheReader struct {
	s   string
	pos int
	err error
}

func (r *cacheReader) fail() {
	if r.err == nil {
		r.err = errCacheCorrupt
	}
	r.pos = len(r.s)
}

func (r *cacheReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	var v uint64
	var shift uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if r.pos >= len(r.s) {
			break
		}
		c := r.s[r.pos]
		r.pos++
		if c < 0x80 {
			return v | uint64(c)<<shift
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	r.fail()
	return 0
}

func (r *cacheReader) int() int64 {
	u := r.uint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// n reads a count of items that each take at least one byte.
func (r *cacheReader) n() int {
	v := r.uint()
	if v > uint64(len(r.s)-r.pos) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *cacheReader) str() string {
	n := r.n()
	if r.err != nil {
		return ""
	}
	s := r.s[r.pos : r.pos+n]
	r.pos += n
	return s
}

func (r *cacheReader) bool() bool {
	switch r.uint() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail()
	return false
}

func (r *cacheReader) strs() []string {
	n := r.n()
	if n == 0 || r.err != nil {
		return nil
	}
	out := make([]string, n-1)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// skillFieldCount is the number of fields of Skill the codec writes; a test
// fails when Skill gains a field this file does not know.
const skillFieldCount = 48

func (w *cacheWriter) skill(s *Skill) error {
	for _, v := range []string{s.Name, s.Dir, s.RealDir, string(s.Source), s.Root, s.Bound, s.Nested, s.ManifestPath, s.SkillPath, s.Plugin, s.PluginDir,
		s.Description, s.WhenToUse, s.Version, s.Author, s.License, s.Category, s.Compatibility} {
		w.str(v)
	}
	w.strs(s.Tags)
	if err := w.value(s.Metadata); err != nil {
		return err
	}
	for _, v := range [][]string{s.Permissions, s.Triggers, s.AllowedTools, s.Arguments} {
		w.strs(v)
	}
	w.str(s.ArgumentHint)
	w.bool(s.DisableModelInvocation)
	w.bool(s.UserInvocable)
	w.bool(s.Command)
	w.str(s.Context)
	w.str(s.Agent)
	w.str(s.Model)
	w.str(s.Effort)
	w.str(s.Mode)
	w.bool(s.Shell != nil)
	if s.Shell != nil {
		w.str(s.Shell.Command)
		w.strs(s.Shell.Args)
		w.int(int64(s.Shell.TimeoutSecs))
	}
	w.strs(s.Paths)
	w.strs(s.OS)
	for _, v := range [][]string{s.Requires.Bins, s.Requires.AnyBins, s.Requires.Env, s.Requires.OS, s.Requires.Config} {
		w.strs(v)
	}
	w.bool(s.Always)
	w.bool(s.IgnoreRequires)
	if err := w.hooks(s.Hooks); err != nil {
		return err
	}
	w.str(s.Body)
	w.int(int64(s.BodySize))
	w.strs(s.Dynamic)
	// Remote: a skill served over MCP is never parsed from disk, so never
	// cached; written all the same, so a Skill survives the codec whole.
	w.bool(s.Remote != nil)
	if s.Remote != nil {
		w.str(s.Remote.Server)
		w.str(s.Remote.URI)
		w.strs(s.Remote.Files)
	}
	w.str(s.ManifestHash)
	w.str(s.SkillHash)
	w.str(string(s.Status))
	w.str(s.Reason)
	return nil
}

func (r *cacheReader) skill() *Skill {
	s := &Skill{}
	r.skillInto(s)
	return s
}

// skillInto decodes a skill into s, which is zero.
func (r *cacheReader) skillInto(s *Skill) {
	for _, p := range []*string{&s.Name, &s.Dir, &s.RealDir, (*string)(&s.Source), &s.Root, &s.Bound, &s.Nested, &s.ManifestPath, &s.SkillPath, &s.Plugin, &s.PluginDir,
		&s.Description, &s.WhenToUse, &s.Version, &s.Author, &s.License, &s.Category, &s.Compatibility} {
		*p = r.str()
	}
	s.Tags = r.strs()
	if m, ok := r.value(0).(map[string]any); ok {
		s.Metadata = m
	}
	for _, p := range []*[]string{&s.Permissions, &s.Triggers, &s.AllowedTools, &s.Arguments} {
		*p = r.strs()
	}
	s.ArgumentHint = r.str()
	s.DisableModelInvocation = r.bool()
	s.UserInvocable = r.bool()
	s.Command = r.bool()
	s.Context = r.str()
	s.Agent = r.str()
	s.Model = r.str()
	s.Effort = r.str()
	s.Mode = r.str()
	if r.bool() {
		s.Shell = &ShellSpec{Command: r.str(), Args: r.strs(), TimeoutSecs: int(r.int())}
	}
	s.Paths = r.strs()
	s.OS = r.strs()
	for _, p := range []*[]string{&s.Requires.Bins, &s.Requires.AnyBins, &s.Requires.Env, &s.Requires.OS, &s.Requires.Config} {
		*p = r.strs()
	}
	s.Always = r.bool()
	s.IgnoreRequires = r.bool()
	s.Hooks = r.hooks()
	s.Body = r.str()
	s.BodySize = int(r.int())
	s.Dynamic = r.strs()
	if r.bool() {
		s.Remote = &Remote{Server: r.str(), URI: r.str(), Files: r.strs()}
	}
	s.ManifestHash = r.str()
	s.SkillHash = r.str()
	s.Status = Status(r.str())
	s.Reason = r.str()
}

// hooks writes a skill's hooks as their JSON ("" for none): they are
// plain data, rare, and small.
func (w *cacheWriter) hooks(h claudesettings.Hooks) error {
	if h == nil {
		w.str("")
		return nil
	}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	w.str(string(b))
	return nil
}

func (r *cacheReader) hooks() claudesettings.Hooks {
	s := r.str()
	if s == "" || r.err != nil {
		return nil
	}
	var h claudesettings.Hooks
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		r.fail()
		return nil
	}
	return h
}

// Tags of the generic values of Skill.Metadata (see plainValue).
const (
	tagNil = iota
	tagString
	tagTrue
	tagFalse
	tagInt
	tagFloat
	tagMap
	tagList
	tagNilMap // a nil map[string]any, so that nil Metadata stays nil
)

// maxValueDepth bounds the nesting the reader accepts; the writer never
// produces more than the frontmatter parsers allow.
const maxValueDepth = 64

// value writes a decoded YAML/TOML value. A type the codec does not know
// is an error: the skill is then not cached, never cached wrong.
func (w *cacheWriter) value(v any) error {
	switch v := v.(type) {
	case nil:
		w.uint(tagNil)
	case string:
		w.uint(tagString)
		w.str(v)
	case bool:
		if v {
			w.uint(tagTrue)
		} else {
			w.uint(tagFalse)
		}
	case int:
		w.uint(tagInt)
		w.int(int64(v))
	case float64:
		w.uint(tagFloat)
		w.uint(math.Float64bits(v))
	case map[string]any:
		if v == nil {
			w.uint(tagNilMap)
			return nil
		}
		w.uint(tagMap)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.uint(uint64(len(keys)))
		for _, k := range keys {
			w.str(k)
			if err := w.value(v[k]); err != nil {
				return err
			}
		}
	case []any:
		w.uint(tagList)
		w.uint(uint64(len(v)))
		for _, x := range v {
			if err := w.value(x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("metadata value of type %T", v)
	}
	return nil
}

func (r *cacheReader) value(depth int) any {
	if depth > maxValueDepth {
		r.fail()
		return nil
	}
	switch r.uint() {
	case tagNil, tagNilMap:
		return nil
	case tagString:
		return r.str()
	case tagTrue:
		return true
	case tagFalse:
		return false
	case tagInt:
		return int(r.int())
	case tagFloat:
		return math.Float64frombits(r.uint())
	case tagMap:
		n := r.n()
		m := make(map[string]any, n)
		for range n {
			k := r.str()
			m[k] = r.value(depth + 1)
		}
		return m
	case tagList:
		n := r.n()
		l := make([]any, n)
		for i := range l {
			l[i] = r.value(depth + 1)
		}
		return l
	}
	r.fail()
	return nil
}

func (w *cacheWriter) diags(ds []Diagnostic) {
	if ds == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(ds)) + 1)
	for _, d := range ds {
		w.str(d.Path)
		w.str(string(d.Severity))
		w.str(d.Message)
	}
}

func (r *cacheReader) diags() []Diagnostic {
	n := r.n()
	if n == 0 || r.err != nil {
		return nil
	}
	out := make([]Diagnostic, n-1)
	for i := range out {
		out[i] = Diagnostic{Path: r.str(), Severity: Severity(r.str()), Message: r.str()}
	}
	return out
}

func (w *cacheWriter) stamp(st fileStamp) {
	w.str(st.name)
	w.uint(uint64(st.mode))
	w.int(st.size)
	w.int(st.mtime)
	w.int(st.ctime)
	w.uint(st.dev)
	w.uint(st.ino)
}

func (r *cacheReader) stamp() fileStamp {
	return fileStamp{name: r.str(), mode: fs.FileMode(r.uint()), size: r.int(), mtime: r.int(), ctime: r.int(), dev: r.uint(), ino: r.uint()}
}

// A cachedDirEntry is a directory entry read back from the cache file.
type cachedDirEntry struct {
	dir, name string
	typ       fs.FileMode
}

func (e cachedDirEntry) Name() string               { return e.name }
func (e cachedDirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e cachedDirEntry) Type() fs.FileMode          { return e.typ }
func (e cachedDirEntry) Info() (fs.FileInfo, error) { return os.Lstat(joinPath(e.dir, e.name)) }

// listing encodes a directory listing as the one string a dirEntry
// keeps until it is used ([decodeListing]).
func listing(list []fs.DirEntry) string {
	w := &cacheWriter{}
	w.dirEntries(list)
	return string(w.b)
}

// decodeListing decodes [listing]'s string for dir; ok is false when it
// is damaged.
func decodeListing(dir, raw string) ([]fs.DirEntry, bool) {
	r := &cacheReader{s: raw}
	out := r.dirEntries(dir)
	return out, r.err == nil && r.pos == len(r.s)
}

func (w *cacheWriter) dirEntries(list []fs.DirEntry) {
	w.uint(uint64(len(list)))
	for _, e := range list {
		w.str(e.Name())
		w.uint(uint64(e.Type()))
	}
}

func (r *cacheReader) dirEntries(dir string) []fs.DirEntry {
	n := r.n()
	out := make([]fs.DirEntry, 0, n)
	// One array for the entries: an interface holding a pointer into it
	// allocates nothing more.
	arr := make([]cachedDirEntry, n)
	for i := range n {
		name := r.str()
		typ := fs.FileMode(r.uint())
		if r.err != nil {
			return nil
		}
		arr[i] = cachedDirEntry{dir: dir, name: name, typ: typ}
		out = append(out, &arr[i])
	}
	// os.ReadDir sorts by name; a file that does not is not ours.
	if !slices.IsSortedFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }) {
		r.fail()
	}
	return out
}
