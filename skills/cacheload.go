package skills

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// A loaded cache file's entries and listings stay encoded (issue 28). At
// load they are checked and indexed: the offset of each one in the file's
// bytes, 4 bytes apiece. A replayed start reads them from there, one at a
// time, as its check reaches them ([walkSnapshot.dirAt],
// [walkSnapshot.entAt]); only a walk, or a save after one, makes them
// objects and maps ([ParseCache.ensureMaps]). With 10,000 skills that is
// 3.9 MB a replayed start neither allocates nor touches.

// loadedCache is what the cache file holds, in file order.
type loadedCache struct {
	// roots are the roots' real paths, which entries name by index.
	roots []string
	// es is the entries section and eoff the offset of each entry in it;
	// ls holds the listings and loff is the offset of each in it.
	es, ls     string
	eoff, loff []uint32
	// gen is the generation of every entry and listing while they are
	// encoded: a replay sets it, and materialize gives it to each.
	gen uint64
	// ents and dirs are the entries and listings as objects, in file
	// order, once materialized (made is then true). The cache's lock
	// guards them and gen.
	ents []loadedEntry
	dirs []loadedDir
	made bool
}

type loadedEntry struct {
	key cacheKey
	e   *cacheEntry
}

type loadedDir struct {
	path string
	e    *dirEntry
}

// maxCacheFile is the largest cache file that offsets of 4 bytes index.
const maxCacheFile = 1<<32 - 1

// indexEntries checks the entries section r reads, recording where each
// entry starts; it returns the largest listing an entry refers to.
func (p *loadedCache) indexEntries(r *cacheReader) (maxRef int) {
	var stamps []fileStamp
	for r.bool() {
		p.eoff = append(p.eoff, uint32(r.pos))
		var ref int
		_, ref, stamps, _ = p.readEntry(r, stamps[:0], false)
		maxRef = max(maxRef, ref)
	}
	return maxRef
}

// readEntry reads one entry at r: its key (but for the folder of an entry
// that refers to a listing, when resolve is false), the listing it refers
// to (its index plus one, 0 for none), its stamps (appended to stamps) and
// its raw result. An entry whose root is out of range fails r.
func (p *loadedCache) readEntry(r *cacheReader, stamps []fileStamp, resolve bool) (k cacheKey, ref int, _ []fileStamp, raw string) {
	ref = readRef(r)
	if ref == 0 {
		k.dir = r.str()
	} else if resolve {
		k.dir = p.listingPath(ref - 1)
	}
	k.dirReal = r.str()
	if root := r.uint(); root < uint64(len(p.roots)) {
		k.rootReal = p.roots[root]
	} else {
		r.fail()
	}
	k.limit = r.int()
	n := r.n()
	for range n {
		stamps = append(stamps, r.stamp())
	}
	raw = r.str()
	if k.dirReal == markDir && (ref == 0 || resolve) {
		k.dirReal = k.dir
	}
	return k, ref, stamps, raw
}

// readRef reads an entry's listing reference, capped where any int holds
// it: a larger one is out of range anyway (a listing takes 10 bytes at
// least, the file less than 4 GiB). Not r.n(): the index counts listings,
// not bytes left here. The index and key must read it alike.
func readRef(r *cacheReader) int {
	return int(min(r.uint(), math.MaxInt32))
}

// indexListings checks the listings r reads, recording where each one
// starts.
func (p *loadedCache) indexListings(r *cacheReader) {
	for r.bool() {
		p.loff = append(p.loff, uint32(r.pos))
		readListing(r)
	}
}

// readListing reads one listing at r: its folder, the folder's stamp, and
// the listing as the cache keeps it ([listing]).
func readListing(r *cacheReader) (path string, st fileStamp, raw string) {
	path = r.str()
	st = r.stamp()
	raw = r.str()
	return path, st, raw
}

// listing returns listing i; the file was checked when it was indexed.
func (p *loadedCache) listing(i int) (path string, st fileStamp, raw string) {
	return readListing(&cacheReader{s: p.ls, pos: int(p.loff[i])})
}

// listingPath returns the folder of listing i.
func (p *loadedCache) listingPath(i int) string {
	r := &cacheReader{s: p.ls, pos: int(p.loff[i])}
	return r.str()
}

// entry returns entry j, with its stamps appended to stamps.
func (p *loadedCache) entry(j int, stamps []fileStamp) (cacheKey, []fileStamp, string) {
	k, _, stamps, raw := p.readEntry(&cacheReader{s: p.es, pos: int(p.eoff[j])}, stamps, true)
	return k, stamps, raw
}

// key returns the key of entry j.
func (p *loadedCache) key(j int) cacheKey {
	r := &cacheReader{s: p.es, pos: int(p.eoff[j])}
	var k cacheKey
	if ref := readRef(r); ref == 0 {
		k.dir = r.str()
	} else {
		k.dir = p.listingPath(ref - 1)
	}
	if k.dirReal = r.str(); k.dirReal == markDir {
		k.dirReal = k.dir
	}
	k.rootReal = p.roots[r.uint()]
	k.limit = r.int()
	return k
}

// listed reports whether a listing is of folder path (listings are sorted
// by folder).
func (p *loadedCache) listed(path string) bool {
	i := sort.Search(len(p.loff), func(i int) bool { return cmp.Compare(p.listingPath(i), path) >= 0 })
	return i < len(p.loff) && p.listingPath(i) == path
}

// materialize makes the entries and listings objects, of generation
// p.gen; the cache's lock is held. Entries, listings and stamps are
// allocated in blocks.
func (p *loadedCache) materialize() {
	if p.made {
		return
	}
	p.made = true
	p.dirs = make([]loadedDir, 0, len(p.loff))
	var dirBlock []dirEntry
	for i := range p.loff {
		path, st, raw := p.listing(i)
		if len(dirBlock) == cap(dirBlock) {
			dirBlock = make([]dirEntry, 0, allocBlock)
		}
		// Decoded when a walk uses it ([cacheRun.readDir]).
		dirBlock = append(dirBlock, dirEntry{stamp: st, raw: raw, gen: p.gen})
		p.dirs = append(p.dirs, loadedDir{path: path, e: &dirBlock[len(dirBlock)-1]})
	}
	p.ents = make([]loadedEntry, 0, len(p.eoff))
	var (
		block  []cacheEntry
		stamps []fileStamp
	)
	for j := range p.eoff {
		if cap(stamps)-len(stamps) < 4 {
			stamps = make([]fileStamp, 0, allocBlock)
		}
		start := len(stamps)
		var k cacheKey
		var raw string
		k, stamps, raw = p.entry(j, stamps)
		if len(block) == cap(block) {
			block = make([]cacheEntry, 0, allocBlock)
		}
		// The raw result is decoded at its first hit.
		block = append(block, cacheEntry{stamps: stamps[start:len(stamps):len(stamps)], raw: raw, gen: p.gen})
		p.ents = append(p.ents, loadedEntry{key: k, e: &block[len(block)-1]})
	}
}

// ensureMaps builds the maps from what was loaded; c.mu is held.
func (c *ParseCache) ensureMaps() {
	p := c.pending
	if p == nil {
		return
	}
	c.pending = nil
	p.materialize()
	c.entries = make(map[cacheKey]*cacheEntry, len(p.ents))
	for _, le := range p.ents {
		c.entries[le.key] = le.e
	}
	c.dirs = make(map[string]*dirEntry, len(p.dirs))
	for _, d := range p.dirs {
		c.dirs[d.path] = d.e
	}
}

// A snapshot's listings and entries, whichever form they are in.

// numDirs and numEnts are the numbers of listings and entries of the
// snapshot.
func (snap *walkSnapshot) numDirs() int {
	if snap.file != nil {
		return len(snap.file.loff)
	}
	return len(snap.dirs)
}

func (snap *walkSnapshot) numEnts() int {
	if snap.file != nil {
		return len(snap.file.eoff)
	}
	return len(snap.ents)
}

// dirAt returns listing i's folder and the folder's stamp.
func (snap *walkSnapshot) dirAt(i int) (string, fileStamp) {
	if snap.file != nil {
		path, st, _ := snap.file.listing(i)
		return path, st
	}
	return snap.dirs[i].path, snap.dirs[i].e.stamp
}

// entAt returns entry j's key, stamps and raw result; the stamps of an
// encoded entry are decoded into *buf.
func (snap *walkSnapshot) entAt(j int, buf *[]fileStamp) (cacheKey, []fileStamp, string) {
	if snap.file != nil {
		var k cacheKey
		var raw string
		k, *buf, raw = snap.file.entry(j, (*buf)[:0])
		return k, *buf, raw
	}
	le := snap.ents[j]
	return le.key, le.e.stamps, le.e.raw
}

// keyAt returns entry j's key.
func (snap *walkSnapshot) keyAt(j int) cacheKey {
	if snap.file != nil {
		return snap.file.key(j)
	}
	return snap.ents[j].key
}

// listed reports whether the snapshot stamps the listing of folder path.
func (snap *walkSnapshot) listed(path string) bool {
	if snap.file != nil {
		return snap.file.listed(path)
	}
	_, ok := slices.BinarySearchFunc(snap.dirs, path, func(d loadedDir, p string) int { return cmp.Compare(d.path, p) })
	return ok
}

// setGen gives every listing and entry of the snapshot generation gen;
// the cache's lock is held.
func (snap *walkSnapshot) setGen(gen uint64) {
	dirs, ents := snap.dirs, snap.ents
	if p := snap.file; p != nil {
		p.gen = gen
		dirs, ents = p.dirs, p.ents // none before they are materialized
	}
	for _, d := range dirs {
		d.e.gen = gen
	}
	for _, le := range ents {
		le.e.gen = gen
	}
}

// objects returns the listings and entries of the snapshot as objects;
// those of a snapshot read from the file only once they are materialized
// ([ParseCache.ensureMaps]), nil before. The cache's lock is held.
func (snap *walkSnapshot) objects() ([]loadedDir, []loadedEntry) {
	if p := snap.file; p != nil {
		return p.dirs, p.ents
	}
	return snap.dirs, snap.ents
}
