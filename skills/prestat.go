package skills

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// A warm discovery's only system calls are stats: of each directory whose
// listing the cache keeps, and of each cached skill's SKILL.md and
// manifest.toml. They do not depend on one another, so prestat takes them
// all at once on every core before the walk, which then asks the cache
// for them one at a time without a system call (readDir, quickHit). A
// stamp taken by the pre-stat is as good as one taken during the walk:
// either is compared with the stamp the cache keeps, and a change after it
// shows as a different stamp to the next discovery.

// preStatChunk is how many stats a worker takes at a time.
const preStatChunk = 32

// prestat stamps every cached directory and skill file for this run (gen).
// Where a stat fails, nothing is recorded: the walk stats again and
// reports what it finds.
func (r *cacheRun) prestat() {
	if r == nil {
		return
	}
	c := r.c
	c.mu.Lock()
	dirs := make([]*dirEntry, 0, len(c.dirs))
	dirPaths := make([]string, 0, len(c.dirs))
	for p, e := range c.dirs {
		dirs, dirPaths = append(dirs, e), append(dirPaths, p)
	}
	ents := make([]*cacheEntry, 0, len(c.entries))
	entDirs := make([]string, 0, len(c.entries))
	for k, e := range c.entries {
		ents, entDirs = append(ents, e), append(entDirs, k.dir)
	}
	c.mu.Unlock()
	n := len(dirs) + len(ents)
	if n == 0 {
		return // a cold discovery: nothing to stat ahead
	}
	dirPres := make([]dirPre, len(dirs))
	// Entries whose files are unchanged are decoded here too, on every
	// core, into slabs of skills, rather than one at a time by the walker.
	entPres := make([]entryPre, len(ents))
	onEveryCore(n, preStatChunk, func(stat *statter) func(lo, hi int) bool {
		dec := slabDecoder{size: len(ents)}
		return func(lo, hi int) bool {
			for i := lo; i < hi; i++ {
				if i < len(dirs) {
					dirPres[i].stamp, dirPres[i].ok = stat.dir(dirPaths[i])
					continue
				}
				j := i - len(dirs)
				p := &entPres[j]
				if now, ok := stat.files(entDirs[j], ents[j].stamps, nil); ok && len(now) > 0 {
					p.stamps = now
				}
				if e := ents[j]; e.raw != "" && sameFiles(e.stamps, p.stamps) {
					p.skill, p.diags, p.decoded = dec.decode(entDirs[j], e.raw)
				}
			}
			return true
		}
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range dirs {
		dirPres[i].gen = r.gen
		e.pre = &dirPres[i]
	}
	for i, e := range ents {
		entPres[i].gen = r.gen
		e.pre = &entPres[i]
	}
}

// onEveryCore runs the work of [0, n) in chunks of chunk on GOMAXPROCS
// goroutines, each with the chunk function worker returns for its own
// statter (so that it keeps its own buffers and open folder), until every
// chunk is done or one returns false. It reports whether none did.
func onEveryCore(n, chunk int, worker func(stat *statter) func(lo, hi int) bool) bool {
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			var stat statter
			defer stat.close()
			do := worker(&stat)
			for !failed.Load() {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				if !do(lo, min(lo+chunk, n)) {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return !failed.Load()
}

// sameFiles reports whether now, the pre-stat's stamps of the regular
// files among stamps, are those stamps.
func sameFiles(stamps, now []fileStamp) bool {
	i := 0
	for _, st := range stamps {
		if !st.mode.IsRegular() {
			continue
		}
		if i >= len(now) || now[i] != st {
			return false
		}
		i++
	}
	return i == len(now)
}
