package skills

import (
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// The decoder of the entries and listings before they were kept encoded
// (d3dc272, cachefile.go: entries, resolveDirs, listings), kept here as
// the reference the index-only load (cacheload.go) must agree with.

type refLoaded struct {
	ents []loadedEntry
	dirs []loadedDir
	snap *walkSnapshot
}

func (r *cacheReader) refEntries(roots []string) ([]loadedEntry, []int) {
	var ents []loadedEntry
	var refs []int
	for r.bool() {
		var k cacheKey
		ref := int(min(r.uint(), 1<<40))
		if ref == 0 {
			k.dir = r.str()
		}
		k.dirReal = r.str()
		if root := r.uint(); root < uint64(len(roots)) {
			k.rootReal = roots[root]
		} else {
			r.fail()
		}
		k.limit = r.int()
		n := r.n()
		var stamps []fileStamp
		for range n {
			stamps = append(stamps, r.stamp())
		}
		ents = append(ents, loadedEntry{key: k, e: &cacheEntry{stamps: stamps, raw: r.str()}})
		refs = append(refs, ref)
	}
	return ents, refs
}

func (p *refLoaded) resolveDirs(refs []int) bool {
	for i, ref := range refs {
		k := &p.ents[i].key
		if ref > 0 {
			if ref > len(p.dirs) {
				return false
			}
			k.dir = p.dirs[ref-1].path
		}
		if k.dirReal == markDir {
			k.dirReal = k.dir
		}
	}
	return true
}

func (r *cacheReader) refListings() []loadedDir {
	var dirs []loadedDir
	for r.bool() {
		dir := r.str()
		st := r.stamp()
		dirs = append(dirs, loadedDir{path: dir, e: &dirEntry{stamp: st, raw: r.str()}})
	}
	return dirs
}

// refDecode is d3dc272's ParseCache.decode, returning what it loaded.
func refDecode(stamp string, data []byte) (*refLoaded, bool) {
	if len(data) < len(cacheMagic)+4 {
		return nil, false
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, false
	}
	r := &cacheReader{s: string(body)}
	if r.s[:len(cacheMagic)] != cacheMagic {
		return nil, false
	}
	r.pos = len(cacheMagic)
	if r.uint() != cacheFormat {
		return nil, false
	}
	if s := r.str(); s != stamp || r.err != nil {
		return nil, false
	}
	r.n()
	r.n()
	p := &refLoaded{}
	roots := r.strs()
	er := &cacheReader{s: r.str()}
	var refs []int
	p.ents, refs = er.refEntries(roots)
	p.dirs = r.refListings()
	if er.err != nil || er.pos != len(er.s) || !p.resolveDirs(refs) {
		r.fail()
	}
	if r.bool() {
		// snapshot only looks at the number of entries.
		p.snap = r.snapshot(&loadedCache{eoff: make([]uint32, len(p.ents))})
		if p.snap != nil {
			p.snap.file, p.snap.dirs, p.snap.ents = nil, p.dirs, p.ents
		}
	}
	if r.err == nil && r.pos != len(r.s) {
		r.fail()
	}
	if r.err != nil {
		return nil, false
	}
	return p, true
}

// checkLoadEquiv decodes data with both decoders and fails t where they
// differ: acceptance, the entries and listings (encoded and materialized),
// listed and fits.
func checkLoadEquiv(t *testing.T, data []byte) {
	t.Helper()
	ref, refOK := refDecode("fuzz", data)
	c := &ParseCache{stamp: "fuzz"}
	err := c.decode(slices.Clone(data))
	if (err == nil) != refOK {
		t.Fatalf("load accepted %v, reference decoder %v (err %v)", err == nil, refOK, err)
	}
	if !refOK {
		return
	}
	p := c.pending
	if len(p.eoff) != len(ref.ents) || len(p.loff) != len(ref.dirs) {
		t.Fatalf("%d entries %d listings, reference %d %d", len(p.eoff), len(p.loff), len(ref.ents), len(ref.dirs))
	}
	var buf []fileStamp
	for i, d := range ref.dirs {
		path, st, raw := p.listing(i)
		if path != d.path || st != d.e.stamp || raw != d.e.raw || p.listingPath(i) != d.path {
			t.Fatalf("listing %d differs from the reference", i)
		}
	}
	for j, le := range ref.ents {
		k, stamps, raw := p.entry(j, buf[:0])
		if k != le.key || p.key(j) != le.key || !slices.Equal(stamps, le.e.stamps) || raw != le.e.raw {
			t.Fatalf("entry %d: key %v entry key %v, reference %v", j, p.key(j), k, le.key)
		}
	}
	if (c.snap == nil) != (ref.snap == nil) {
		t.Fatal("snapshot presence differs from the reference")
	}
	if snap := c.snap; snap != nil {
		probe := func(path string) {
			_, want := slices.BinarySearchFunc(ref.dirs, path, func(d loadedDir, p string) int { return cmp.Compare(d.path, p) })
			if got := snap.listed(path); got != want {
				t.Fatalf("listed(%q) = %v, reference %v", path, got, want)
			}
		}
		for _, d := range ref.dirs {
			probe(d.path)
			probe(d.path + "\x00")
		}
		for _, ev := range snap.events {
			if ev.cmd != nil {
				probe(ev.cmd.dir)
			}
		}
		for roots := range 4 {
			if snap.fits(roots) != ref.snap.fits(roots) {
				t.Fatalf("fits(%d) = %v, reference %v", roots, snap.fits(roots), ref.snap.fits(roots))
			}
		}
	}
	c.mu.Lock()
	c.ensureMaps()
	c.mu.Unlock()
	for j, le := range p.ents {
		if le.key != ref.ents[j].key || !slices.Equal(le.e.stamps, ref.ents[j].e.stamps) || le.e.raw != ref.ents[j].e.raw {
			t.Fatalf("materialized entry %d differs from the reference", j)
		}
	}
	for i, d := range p.dirs {
		if d.path != ref.dirs[i].path || d.e.stamp != ref.dirs[i].e.stamp || d.e.raw != ref.dirs[i].e.raw {
			t.Fatalf("materialized listing %d differs from the reference", i)
		}
	}
}

// withSum returns body with its checksum appended, so that the fuzzer's
// mutations reach the structure (FuzzCacheDecode's only pass the checksum
// for its unchanged seeds).
func withSum(body []byte) []byte {
	return binary.LittleEndian.AppendUint32(slices.Clip(body), crc32.ChecksumIEEE(body))
}

// FuzzCacheLoadEquiv: the index-only load accepts exactly the files the
// decoder before it accepted, and reads back from them what it decoded.
func FuzzCacheLoadEquiv(f *testing.F) {
	data := seedCacheFile(f, map[string]string{
		"a/SKILL.md":           "---\nname: a\ndescription: One.\n---\nx\n",
		"b/SKILL.md":           "---\nname: [broken\n---\ny\n",
		"c/manifest.toml":      "[skill]\nname = \"c\"\n",
		"c/SKILL.md":           "---\nshell: echo hi\n---\n",
		"d/e/SKILL.md":         "---\nname: e\ndescription: E.\n---\nx\n",
		"d/f/SKILL.md":         "---\nname: f\ndescription: F.\n---\nx\n",
		"zz/SKILL.md":          "---\nname: zz\ndescription: Z.\n---\nx\n",
		"link-target/SKILL.md": "---\nname: lt\ndescription: L.\n---\nx\n",
	})
	f.Add(data[:len(data)-4])
	f.Fuzz(func(t *testing.T, body []byte) {
		checkLoadEquiv(t, withSum(body))
	})
}

// TestCacheLoadEquivConcurrent: a replay's check reads the encoded file
// (Preverify, without the lock) while walks materialize it and replays set
// its generation; run with -race.
func TestCacheLoadEquivConcurrent(t *testing.T) {
	t.Parallel()
	opts, base := replayTree(t)
	path := filepath.Join(t.TempDir(), "cache.bin")
	backdate(t, base)
	discoverThroughFile(t, opts, path, "equiv test", "record")
	for range 10 {
		c, err := LoadParseCache(path, "equiv test")
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		o.Cache = c
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() { c.Preverify() })
			wg.Go(func() { Discover(t.Context(), o) }) // replays
			wg.Go(func() {
				run := c.begin() // a walk's start: materializes
				run.c.mu.Lock()
				_ = run.c.snap
				run.c.mu.Unlock()
			})
			wg.Go(func() { _ = c.Save(filepath.Join(t.TempDir(), "other.bin")) })
		}
		wg.Wait()
	}
}

// TestCacheLoadHugeRef: an entry's listing reference beyond what an int
// holds is read the same way by the index and by key (on a 32-bit build
// int(min(v, 1<<40)) is 0 there but int(v) is not: key read a listing the
// index never checked, and panicked when there was none).
func TestCacheLoadHugeRef(t *testing.T) {
	for _, ref := range []uint64{1<<40 + 1, 1<<32 + 1, 1<<31 + 1, 1 << 63} {
		w := &cacheWriter{}
		w.b = append(w.b, cacheMagic...)
		w.uint(cacheFormat)
		w.str("fuzz")
		w.uint(1) // entries
		w.uint(0) // listings
		w.strs([]string{"/r"})
		ew := &cacheWriter{}
		ew.bool(true)
		ew.uint(ref)
		ew.str("/r/d") // the folder, were ref 0
		ew.str(markDir)
		ew.uint(0) // root
		ew.int(1 << 20)
		ew.uint(0) // stamps
		ew.str("")
		ew.bool(false)
		w.str(string(ew.b))
		w.bool(false) // no listings
		w.bool(false) // no snapshot
		// A reference with no listings is out of range: the file is
		// refused (the decoder before the index truncated it to 0 where
		// int has 32 bits, and took the entry as one without).
		c := &ParseCache{stamp: "fuzz"}
		if c.decode(withSum(w.b)) == nil {
			k, _, _ := c.pending.entry(0, nil)
			if got := c.pending.key(0); got != k {
				t.Errorf("ref %d: key %v, entry's key %v", ref, got, k)
			}
			t.Errorf("ref %d to no listing accepted", ref)
		}
	}
}

// TestBuilds32Bit: the package builds where int has 32 bits, as it did
// before the index-only load (maxCacheFile overflowed int there).
func TestBuilds32Bit(t *testing.T) {
	if testing.Short() || strconv.IntSize == 32 {
		t.Skip("cross build")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, arch := range []string{"386", "arm"} {
		cmd := exec.Command(goTool, "vet", ".")
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOARCH=%s go vet: %v\n%s", arch, err, out)
		}
	}
}

// TestReplayWalkSave: a replay from the file, then a walk in the same
// process, then a save, writes a file whose next start replays with every
// entry (the replay's generation carried to the still-encoded entries).
func TestReplayWalkSave(t *testing.T) {
	t.Parallel()
	opts, _ := replayTree(t)
	path := filepath.Join(t.TempDir(), "cache.bin")
	(&replayChecker{t: t, opts: opts, path: path}).discover("cold")
	cache, err := LoadParseCache(path, "replay test")
	if err != nil {
		t.Fatal(err)
	}
	n := cache.Len()
	warm, cold := opts, opts
	warm.Cache, cold.Cache = cache, nil
	Discover(t.Context(), warm)
	Discover(t.Context(), warm) // a second replay: a later generation
	if cache.replays != 2 {
		t.Fatalf("replays %d, want 2", cache.replays)
	}
	writeFiles(t, opts.Roots[0].Path, map[string]string{"cat-a/six/SKILL.md": md("six", "Six.")})
	old := time.Now().Add(-2 * time.Hour)
	backdateFiles(t, filepath.Join(opts.Roots[0].Path, "cat-a", "six"), old)
	setMtime(t, filepath.Join(opts.Roots[0].Path, "cat-a"), old)
	if d := gocmp.Diff(Discover(t.Context(), cold), Discover(t.Context(), warm)); d != "" {
		t.Fatalf("walk after the replays differs from a cold one:\n%s", d)
	}
	if err := cache.Save(path); err != nil {
		t.Fatal(err)
	}
	again, err := LoadParseCache(path, "replay test")
	if err != nil {
		t.Fatal(err)
	}
	if again.Len() != n+1 || again.snap == nil {
		t.Fatalf("saved %d entries (snapshot %v), want %d and a snapshot", again.Len(), again.snap != nil, n+1)
	}
	warm.Cache = again
	if d := gocmp.Diff(Discover(t.Context(), cold), Discover(t.Context(), warm)); d != "" || again.replays != 1 {
		t.Fatalf("replays %d; catalog differs from a cold one:\n%s", again.replays, d)
	}
}
