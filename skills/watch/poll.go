package watch

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"os"
	"path/filepath"
	"time"
)

// pollSeed makes snapshots comparable within the process.
var pollSeed = maphash.MakeSeed()

func (w *Watcher) pollLoop(ctx context.Context, prev uint64) {
	defer close(w.done)
	w.pollLoopBody(ctx, prev)
}

// pollBusyFactor bounds the time spent polling: after a snapshot that took
// d, the next one waits at least pollBusyFactor×d, so that polling ten
// thousand skill directories never takes more than 1/20 of a core.
const pollBusyFactor = 20

// pollLoopBody compares a snapshot of the roots every PollInterval (or
// longer, see pollBusyFactor) and sets the flag when it differs. The
// interval is the debounce.
func (w *Watcher) pollLoopBody(ctx context.Context, prev uint64) {
	t := time.NewTimer(w.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			began := time.Now()
			if cur := w.snapshot(); cur != prev {
				prev = cur
				w.fire()
			}
			t.Reset(max(w.opts.PollInterval, pollBusyFactor*time.Since(began)))
		}
	}
}

// snapshot hashes what fsnotify would watch: for each root, the directories
// down to maxDepth (same skips) and the size, mtime and type of every
// relevant file. A missing root hashes as missing, so its creation shows.
func (w *Watcher) snapshot() uint64 {
	var h maphash.Hash
	h.SetSeed(pollSeed)
	for _, r := range w.roots {
		h.WriteString(r)
		h.WriteByte(0)
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			h.WriteString("\x00missing\x00")
			continue
		}
		snapDir(&h, r, 0)
	}
	for _, f := range w.opts.Files {
		h.WriteString("file:" + f + "\x00")
		if fi, err := os.Stat(f); err == nil {
			snapStat(&h, fi)
		}
	}
	return h.Sum64()
}

func snapDir(h *maphash.Hash, dir string, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if walkable(dir, e) {
			h.WriteString("d:" + e.Name() + "\x00")
			if depth < maxDepth {
				snapDir(h, p, depth+1)
			}
			h.WriteString("\x00up\x00")
			continue
		}
		if !Relevant(p) {
			continue
		}
		h.WriteString("f:" + e.Name() + "\x00")
		if fi, err := os.Stat(p); err == nil {
			snapStat(h, fi)
		}
	}
}

// snapStat hashes a file's size, mtime and mode.
func snapStat(h *maphash.Hash, fi os.FileInfo) {
	var buf [8]byte
	for _, n := range []int64{fi.Size(), fi.ModTime().UnixNano(), int64(fi.Mode())} {
		binary.LittleEndian.PutUint64(buf[:], uint64(n))
		h.Write(buf[:])
	}
}
