package skills

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/clawseed/clawseed/internal/atomicfile"
)

// The discovery cache file keeps a ParseCache between processes, so that a
// warm start stats skill files instead of reading and parsing them
// (SPEC §4.2). It is an optimisation only: a file that is missing, damaged,
// written by another format or another build of clawseed, or unreadable is
// ignored (and replaced by the next save), and what it holds is re-checked
// against every file's stamp before use, so a discovery through it returns
// exactly what a cold one would.
//
// Layout: magic, format, build stamp, the numbers of entries and listings
// (capacity hints), the roots' real paths (entries name theirs by index),
// the entries section's length and the entries (an entry's folder is a
// listing's index where the listings hold it: encodeEntry), then the
// directory listings, each entry and listing behind a 1 byte (0 ends the
// list), then the walk snapshot behind a 1 byte (0 for none, replay.go),
// then the CRC-32 of everything before it. The entries' length lets
// loading index the listings on another core meanwhile. An entry's skill
// and diagnostics are one length-prefixed string ([encodeResult]), which
// loading skips and a cache hit decodes: a start decodes only the skills it
// finds unchanged, and keeps no second decoded copy of them. Skill bodies
// are not kept (Skill.Body). Saves write a temporary file and rename it
// over the old one, so concurrent processes never see a torn file: the
// last rename wins.

const (
	cacheMagic  = "clawseed skills cache\n"
	cacheFormat = 15
	// staleTempAge: temporary files older than this are left by a process
	// killed while saving, and removed by the next save.
	staleTempAge = time.Hour
)

// The file's checksum is the IEEE CRC-32: crc32 prepares it in
// microseconds and computes it with carry-less multiplication where the
// CPU has it. CRC-32C (format 13) cost 0.2 ms per start to prepare its
// tables on amd64, more than checking a thousand skills' file.

// allocBlock is how many entries, listings or stamps decoding allocates at
// once.
const allocBlock = 256

// CacheFileName returns the cache file's name for opts: one file per set of
// roots, so that sessions in different projects do not evict each other's
// entries.
func CacheFileName(opts Options) string {
	h := sha256.New()
	for _, r := range opts.Roots {
		fmt.Fprintf(h, "%q %q %q %t\n", r.Path, r.Source, r.Within, r.Commands)
		if r.Plugin != "" {
			fmt.Fprintf(h, "plugin %q\n", r.Plugin)
		}
	}
	fmt.Fprintf(h, "limit %d\n", fileLimit(opts.MaxFileBytes))
	return "skills-" + hex.EncodeToString(h.Sum(nil)[:8]) + ".bin"
}

// LoadParseCache returns a cache holding what path holds, for a build
// identified by stamp (the version and the executable's identity: parsing
// may change between builds). A missing file gives an empty cache and no
// error; a file that cannot be used gives an empty cache and the reason, for
// a debug log. Either way the cache works.
func LoadParseCache(path, stamp string) (*ParseCache, error) {
	c := &ParseCache{stamp: stamp}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return c, nil
		}
		return c, fmt.Errorf("read skill cache %s: %w", path, err)
	}
	if err := c.decode(data); err != nil {
		c.entries, c.dirs, c.pending, c.snap = nil, nil, nil, nil
		return c, fmt.Errorf("skill cache %s ignored: %w", path, err)
	}
	c.loaded = true
	return c, nil
}

func (c *ParseCache) decode(data []byte) error {
	if len(data) < len(cacheMagic)+4 || uint64(len(data)) > maxCacheFile {
		return errCacheCorrupt
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return errors.New("checksum mismatch")
	}
	// The decoded strings share data's memory: it is never written again.
	r := &cacheReader{s: unsafe.String(unsafe.SliceData(body), len(body))}
	if r.s[:len(cacheMagic)] != cacheMagic {
		return errors.New("not a skill cache")
	}
	r.pos = len(cacheMagic)
	if f := r.uint(); f != cacheFormat {
		return fmt.Errorf("format %d, want %d", f, cacheFormat)
	}
	if s := r.str(); s != c.stamp || r.err != nil {
		return errors.New("written by another build")
	}
	nEntries, nDirs := r.n(), r.n()
	// The entries and listings are checked and indexed, not decoded
	// (cacheload.go): a replayed walk reads them where they are, and the
	// maps are built when a discovery needs them (ensureMaps).
	p := &loadedCache{eoff: make([]uint32, 0, nEntries), loff: make([]uint32, 0, nDirs), roots: r.strs(), ls: r.s}
	// The entries come with their length, so that the listings after them
	// are indexed on another core at the same time.
	er := &cacheReader{s: r.str()}
	p.es = er.s
	var wg sync.WaitGroup
	wg.Go(func() { p.indexListings(r) })
	maxRef := p.indexEntries(er)
	wg.Wait()
	if er.err != nil || er.pos != len(er.s) || maxRef > len(p.loff) {
		r.fail()
	}
	if r.bool() {
		c.snap = r.snapshot(p)
	}
	if r.err == nil && r.pos != len(r.s) {
		r.fail()
	}
	if r.err != nil {
		c.snap = nil
		return r.err
	}
	c.pending = p
	return nil
}

// Save writes what the last discovery used to path, unless that is what
// path already holds. It creates path's directory.
func (c *ParseCache) Save(path string) error {
	c.mu.Lock()
	data, changed := c.encode()
	c.mu.Unlock()
	if !changed {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save skill cache: %w", err)
	}
	removeStaleTemps(path)
	if err := atomicfile.WriteCache(path, data, 0o600); err != nil {
		return fmt.Errorf("save skill cache: %w", err)
	}
	c.mu.Lock()
	c.dirty, c.loaded = false, true
	c.mu.Unlock()
	return nil
}

// encode returns the file's bytes and whether they differ from what was
// loaded or last saved. Only entries the last discovery used are written.
func (c *ParseCache) encode() ([]byte, bool) {
	changed := c.dirty || !c.loaded
	if c.pending != nil && !changed {
		// Loaded and not walked since (replayed, or no discovery):
		// what the file holds.
		return nil, false
	}
	c.ensureMaps()
	keys := make([]cacheKey, 0, len(c.entries))
	for k, e := range c.entries {
		if e.gen != c.gen {
			changed = true
			continue
		}
		keys = append(keys, k)
	}
	dirs := make([]string, 0, len(c.dirs))
	for d, e := range c.dirs {
		if e.gen != c.gen {
			changed = true
			continue
		}
		dirs = append(dirs, d)
	}
	if !changed {
		return nil, false
	}
	slices.SortFunc(keys, func(a, b cacheKey) int {
		return cmp.Or(cmp.Compare(a.dir, b.dir), cmp.Compare(a.dirReal, b.dirReal), cmp.Compare(a.rootReal, b.rootReal), cmp.Compare(a.limit, b.limit))
	})
	slices.Sort(dirs)
	w := &cacheWriter{b: make([]byte, 0, 1<<16)}
	w.b = append(w.b, cacheMagic...)
	w.uint(cacheFormat)
	w.str(c.stamp)
	// Capacity hints, so that loading does not grow the maps step by step.
	w.uint(uint64(len(keys)))
	w.uint(uint64(len(dirs)))
	// The roots' real paths, which every entry of a root repeats, are
	// written once.
	var roots []string
	for _, k := range keys {
		if !slices.Contains(roots, k.rootReal) {
			roots = append(roots, k.rootReal)
		}
	}
	slices.Sort(roots)
	w.strs(roots)
	ew := &cacheWriter{b: make([]byte, 0, 1<<16)}
	for _, k := range keys {
		c.encodeEntry(ew, k, roots, dirs)
	}
	ew.bool(false)
	w.uint(uint64(len(ew.b)))
	w.b = append(w.b, ew.b...)
	written := make([]*dirEntry, 0, len(dirs))
	for _, d := range dirs {
		e := c.dirs[d]
		w.bool(true)
		w.str(d)
		w.stamp(e.stamp)
		if e.raw != "" {
			w.str(e.raw)
		} else {
			w.str(listing(e.entries))
		}
		written = append(written, e)
	}
	w.bool(false)
	c.encodeSnapshot(w, keys, written)
	w.b = binary.LittleEndian.AppendUint32(w.b, crc32.ChecksumIEEE(w.b))
	return w.b, true
}

// encodeEntry writes one entry, or nothing when its skill holds a value the
// codec cannot write (that skill is then parsed on every start).
//
// The entry's folder is written as its place among dirs plus one when the
// listings hold it (a warm start's skill folders are all listed), else as
// 0 and the path; its root's real path as its place among roots.
func (c *ParseCache) encodeEntry(w *cacheWriter, k cacheKey, roots, dirs []string) {
	e := c.entries[k]
	if e.raw == "" {
		return
	}
	w.bool(true)
	if i, ok := slices.BinarySearch(dirs, k.dir); ok {
		w.uint(uint64(i) + 1)
	} else {
		w.uint(0)
		w.str(k.dir)
	}
	if k.dirReal == k.dir {
		w.str(markDir) // most skill folders are not reached through a link
	} else {
		w.str(k.dirReal)
	}
	i, _ := slices.BinarySearch(roots, k.rootReal)
	w.uint(uint64(i))
	w.int(k.limit)
	w.uint(uint64(len(e.stamps)))
	for _, st := range e.stamps {
		w.stamp(st)
	}
	w.str(e.raw)
}

// removeStaleTemps removes temporary files a killed save left behind.
func removeStaleTemps(path string) {
	matches, _ := filepath.Glob(atomicfile.TempPattern(path))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > staleTempAge {
			os.Remove(m)
		}
	}
}

// BuildStamp identifies the running executable for LoadParseCache: the
// given version plus the executable's size and modification time, so that a
// rebuilt binary, whose parser may differ, never trusts an older cache.
func BuildStamp(version string) string {
	exe, err := os.Executable()
	if err != nil {
		return version
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return version
	}
	return version + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}
