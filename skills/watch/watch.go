// Package watch tells the agent when the skill roots changed on disk, so the
// catalog is rebuilt before the next model request (SPEC §4.13, hot reload).
//
// It watches every existing root recursively with fsnotify and, for a root
// that does not exist yet, its nearest existing ancestor, so that a new
// `.clawseed/skills/` is noticed and then watched. Where fsnotify cannot be
// used (inotify limits, or more directories than [Options.MaxDirs]) it polls
// the same files' sizes and mtimes every second instead. Either way the
// result is one flag, set after a short quiet period: [Watcher.Take] reports
// and clears it.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of [Options].
const (
	DefaultDebounce     = 150 * time.Millisecond
	DefaultPollInterval = time.Second
	DefaultMaxDirs      = 4096
	// maxDepth bounds the recursive watch below a root: deep enough for
	// root/plugin/skills/category/name/scripts.
	maxDepth = 6
	// maxBurst bounds how long a stream of events can postpone the flag.
	maxBurst = time.Second
)

// Options configures [New].
type Options struct {
	// Roots are the skill roots (and commands directories) to watch; missing
	// ones are watched for through their nearest existing ancestor.
	Roots []string
	// Files are single files whose every change is relevant, such as
	// Claude Code's installed_plugins.json and settings files (which name
	// the plugin roots): their folder is watched alone, not recursively,
	// and only events on the files themselves count.
	Files []string
	// Debounce is the quiet period after the last relevant event before the
	// watcher reports a change; 0 means DefaultDebounce.
	Debounce time.Duration
	// PollInterval is the period of the polling fallback; 0 means
	// DefaultPollInterval.
	PollInterval time.Duration
	// MaxDirs caps the directories watched through fsnotify; past it the
	// watcher polls. 0 means DefaultMaxDirs.
	MaxDirs int
	// ForcePoll skips fsnotify (tests, and filesystems where events do not
	// arrive, such as some network mounts).
	ForcePoll bool
}

// A Watcher reports changes under the skill roots. Its methods are safe for
// concurrent use.
type Watcher struct {
	opts  Options
	roots []string
	files map[string]bool
	// fileDirs are the folders of files, watched like roots of depth 0.
	fileDirs []string
	dirty    atomic.Bool
	polling  atomic.Bool
	changed  chan struct{}
	cancel   context.CancelFunc
	done     chan struct{}
	once     sync.Once

	// Owned by the goroutine (and New before it starts).
	fsw     *fsnotify.Watcher
	watched map[string]bool
	timer   *time.Timer
	burst   time.Time
	prev    uint64 // the first polling snapshot
}

// errTooMany means fsnotify cannot take more watches: fall back to polling.
var errTooMany = errors.New("too many directories to watch")

// New starts watching. It stops when ctx is done or [Watcher.Close] is
// called. Changes made after New returns are reported.
func New(ctx context.Context, opts Options) (*Watcher, error) {
	w, ctx, err := prepare(ctx, opts)
	if err != nil {
		return nil, err
	}
	w.run(ctx, w.setUp())
	return w, nil
}

// Start is New without the wait: it returns at once and sets the watches
// up on the watcher's goroutine, which for thousands of skill directories
// (one inotify watch and one directory read each) costs more than a warm
// discovery. A change made while the watches were being set up could go
// unseen, so once they are in place the flag is set, once: the next
// [Watcher.Take] asks for one rebuild, which a parse cache makes cheap.
func Start(ctx context.Context, opts Options) (*Watcher, error) {
	w, ctx, err := prepare(ctx, opts)
	if err != nil {
		return nil, err
	}
	go func() {
		notify := w.setUp()
		w.fire()
		w.run(ctx, notify)
	}()
	return w, nil
}

func prepare(ctx context.Context, opts Options) (*Watcher, context.Context, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.MaxDirs <= 0 {
		opts.MaxDirs = DefaultMaxDirs
	}
	w := &Watcher{opts: opts, changed: make(chan struct{}, 1), done: make(chan struct{}), watched: map[string]bool{}, files: map[string]bool{}}
	for _, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, nil, err
		}
		w.roots = append(w.roots, abs)
	}
	for _, f := range opts.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, nil, err
		}
		w.files[abs] = true
		w.fileDirs = append(w.fileDirs, filepath.Dir(abs))
	}
	ctx, w.cancel = context.WithCancel(ctx)
	return w, ctx, nil
}

// setUp adds the fsnotify watches, or takes the polling snapshot when
// fsnotify cannot be used; it reports which.
func (w *Watcher) setUp() (notify bool) {
	if !w.opts.ForcePoll && w.startNotify() == nil {
		return true
	}
	w.polling.Store(true)
	w.prev = w.snapshot()
	return false
}

// run starts the loop of the mode setUp chose.
func (w *Watcher) run(ctx context.Context, notify bool) {
	if notify {
		go w.notifyLoop(ctx)
		return
	}
	go w.pollLoop(ctx, w.prev)
}

// Take reports whether a reload is due and clears the flag: call it before
// each model request and rebuild the catalog when it returns true. Changes
// during the rebuild set the flag again.
func (w *Watcher) Take() bool { return w.dirty.CompareAndSwap(true, false) }

// Dirty reports whether a reload is due without clearing the flag.
func (w *Watcher) Dirty() bool { return w.dirty.Load() }

// Changed receives (at most one pending value) when the flag is set, for
// callers that wait instead of polling [Watcher.Take].
func (w *Watcher) Changed() <-chan struct{} { return w.changed }

// Reset clears the flag and any pending Changed value.
func (w *Watcher) Reset() {
	w.dirty.Store(false)
	select {
	case <-w.changed:
	default:
	}
}

// Polling reports whether the watcher fell back to polling.
func (w *Watcher) Polling() bool { return w.polling.Load() }

// Close stops the watcher and waits for its goroutine to end.
func (w *Watcher) Close() error {
	w.once.Do(w.cancel)
	<-w.done
	return nil
}

func (w *Watcher) fire() {
	w.burst = time.Time{}
	w.dirty.Store(true)
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// startNotify creates the fsnotify watcher and adds every root; on
// errTooMany (or no inotify at all) the caller polls.
func (w *Watcher) startNotify() error {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	w.fsw = fsw
	if err := w.watchRoots(); err != nil {
		fsw.Close()
		w.fsw = nil
		w.watched = map[string]bool{}
		return err
	}
	w.timer = time.NewTimer(time.Hour)
	w.timer.Stop()
	return nil
}

// watchRoots watches each existing root recursively, the folder of each
// file alone and, for a missing one, its nearest existing ancestor (alone).
// It is called again whenever a directory on the way to a missing root
// appears or a root disappears.
func (w *Watcher) watchRoots() error {
	for i, r := range append(w.roots[:len(w.roots):len(w.roots)], w.fileDirs...) {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			if i >= len(w.roots) {
				err = w.add(r)
			} else {
				err = w.addTree(r, 0)
			}
			if err != nil {
				return err
			}
			continue
		}
		for a := filepath.Dir(r); ; a = filepath.Dir(a) {
			if fi, err := os.Stat(a); err == nil && fi.IsDir() {
				if err := w.add(a); err != nil {
					return err
				}
				break
			}
			if filepath.Dir(a) == a {
				break
			}
		}
	}
	return nil
}

// addTree watches dir and its subdirectories down to maxDepth, skipping
// what discovery skips (hidden directories but `.claude-plugin`,
// node_modules).
func (w *Watcher) addTree(dir string, depth int) error {
	if err := w.add(dir); err != nil {
		return err
	}
	if depth >= maxDepth {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable: discovery reports it
	}
	for _, e := range entries {
		if !walkable(dir, e) {
			continue
		}
		if err := w.addTree(filepath.Join(dir, e.Name()), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// walkable reports whether a directory entry is a directory to watch or
// poll: a directory or a link to one, not hidden (but `.claude-plugin`),
// not node_modules.
func walkable(dir string, e fs.DirEntry) bool {
	name := e.Name()
	if !watchedName(name) {
		return false
	}
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, name))
	return err == nil && fi.IsDir()
}

// watchedName reports whether a directory of this name is watched.
func watchedName(name string) bool {
	return name != "node_modules" && (!strings.HasPrefix(name, ".") || name == ".claude-plugin")
}

func (w *Watcher) add(dir string) error {
	if w.watched[dir] {
		return nil
	}
	if len(w.watched) >= w.opts.MaxDirs {
		return errTooMany
	}
	if err := w.fsw.Add(dir); err != nil {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
			return errTooMany
		}
		return nil // vanished or unreadable: nothing to watch
	}
	w.watched[dir] = true
	return nil
}

func (w *Watcher) notifyLoop(ctx context.Context) {
	defer close(w.done)
	for {
		select {
		case <-ctx.Done():
			w.fsw.Close()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			relevant, err := w.handle(ev)
			if err != nil {
				w.switchToPoll(ctx)
				return
			}
			if relevant {
				w.schedule()
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.schedule() // events were lost: reload to be sure
			}
		case <-w.timer.C:
			w.fire()
		}
	}
}

// switchToPoll replaces fsnotify by polling when a new directory could not
// be watched; the change that caused it is reported.
func (w *Watcher) switchToPoll(ctx context.Context) {
	w.fsw.Close()
	w.timer.Stop()
	w.polling.Store(true)
	prev := w.snapshot()
	w.fire()
	w.pollLoopBody(ctx, prev)
}

// schedule sets the flag after the debounce period, restarted by every
// event but never more than maxBurst after the first.
func (w *Watcher) schedule() {
	now := time.Now()
	if w.burst.IsZero() {
		w.burst = now
	}
	d := w.opts.Debounce
	if rest := w.burst.Add(maxBurst).Sub(now); rest < d {
		d = max(rest, 0)
	}
	w.timer.Reset(d)
}

// handle updates the watches for one event and reports whether it can
// change the catalog.
func (w *Watcher) handle(ev fsnotify.Event) (bool, error) {
	path := ev.Name
	if w.files[path] {
		return ev.Op != fsnotify.Chmod, nil
	}
	switch {
	case ev.Has(fsnotify.Create):
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			if w.underRoot(path) {
				if d := w.depth(path); d <= maxDepth && watchedName(filepath.Base(path)) {
					return true, w.addTree(path, d)
				}
				return false, nil
			}
			if w.onWayToRoot(path) {
				return true, w.watchRoots()
			}
			return false, nil
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		if w.watched[path] {
			w.forget(path)
			if !w.underRoot(path) || w.isRoot(path) || w.isFileDir(path) {
				return true, w.watchRoots()
			}
			return true, nil
		}
	case ev.Has(fsnotify.Write):
	default:
		return false, nil // Chmod
	}
	return w.underRoot(path) && Relevant(path), nil
}

// forget drops the watches of dir and below (the kernel dropped them with
// the directory, or they now follow it elsewhere).
func (w *Watcher) forget(dir string) {
	prefix := dir + string(filepath.Separator)
	for d := range w.watched {
		if d == dir || strings.HasPrefix(d, prefix) {
			_ = w.fsw.Remove(d)
			delete(w.watched, d)
		}
	}
}

// Relevant reports whether a file can change the catalog: SKILL.md,
// manifest.toml, a plugin's plugin.json, or a Markdown file below a
// `commands` directory (Claude Code commands).
func Relevant(path string) bool {
	switch base := filepath.Base(path); base {
	case "SKILL.md", "manifest.toml", "plugin.json":
		return true
	default:
		if !strings.HasSuffix(base, ".md") {
			return false
		}
	}
	sep := string(filepath.Separator)
	return strings.Contains(filepath.Dir(path)+sep, sep+"commands"+sep)
}

func (w *Watcher) rootOf(path string) string {
	for _, r := range w.roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}

func (w *Watcher) underRoot(path string) bool { return w.rootOf(path) != "" }

func (w *Watcher) isRoot(path string) bool {
	return slices.Contains(w.roots, path)
}

func (w *Watcher) isFileDir(path string) bool {
	return slices.Contains(w.fileDirs, path)
}

// onWayToRoot reports whether path is an ancestor of some root, or the
// folder of a file or an ancestor of it.
func (w *Watcher) onWayToRoot(path string) bool {
	if w.isFileDir(path) {
		return true
	}
	prefix := path + string(filepath.Separator)
	for _, r := range append(w.roots[:len(w.roots):len(w.roots)], w.fileDirs...) {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// depth is path's depth below its root.
func (w *Watcher) depth(path string) int {
	rel, err := filepath.Rel(w.rootOf(path), path)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}
