package tools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed backup.md
var backupDescription string

// Limits of the backup tool, against filling the disk or the call's time.
const (
	defaultBackupMaxBytes = 256 << 20
	defaultBackupMaxFiles = 50000
	// backupManifest is the last entry of every archive: "SHA256  PATH"
	// lines (sha256sum's format) for its regular files.
	backupManifest = ".clawseed-backup-manifest.sha256"
	backupSuffix   = ".tar.gz"
)

type backupArgs struct {
	Action  string `json:"action"`
	Name    string `json:"name,omitempty"`
	Confirm bool   `json:"confirm,omitempty"`
}

// BackupOptions configures [NewBackup].
type BackupOptions struct {
	// Dir is where archives go ([backup].dir resolved, normally
	// <workspace>/.clawseed/backups).
	Dir string
	// Paths are the folders backed up, relative to the workspace; empty
	// means the whole workspace.
	Paths []string
	// MaxBytes and MaxFiles bound what one archive holds (0 = 256 MiB,
	// 50000).
	MaxBytes int64
	MaxFiles int
	// EnvPassthrough and Environ are as in [CoreOptions]; git, when the
	// workspace is a work tree, lists the files .gitignore ignores.
	EnvPassthrough []string
	Environ        []string
	// Start starts that git (nil: unconfined).
	Start Starter
	// Now names archives (nil = time.Now).
	Now func() time.Time
}

// backupTool creates, lists, verifies and restores archives of the
// workspace.
type backupTool struct {
	*typedTool[backupArgs]
	sb   *Sandbox
	opts BackupOptions
	env  []string
	// mu serialises calls: a verify must not read an archive being
	// restored from, two creates in one second must not pick one name.
	mu sync.Mutex
}

// NewBackup returns the backup tool.
func NewBackup(sb *Sandbox, opts BackupOptions) Tool {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = defaultBackupMaxBytes
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = defaultBackupMaxFiles
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	t := &backupTool{sb: sb, opts: opts, env: gitEnv(opts.Environ, opts.EnvPassthrough)}
	t.typedTool = newTypedTool("backup", permissions.ClassWrite, backupDescription, t.run,
		enum("action", "create", "list", "verify", "restore"))
	return t
}

// CallClass implements the agent's per-call class: list, verify and a
// restore without confirm (a report of what it would write) only read.
func (t *backupTool) CallClass(args json.RawMessage) permissions.Class {
	if a, err := t.decode(args); err == nil && (a.Action == "list" || a.Action == "verify" || a.Action == "restore" && !a.Confirm) {
		return permissions.ClassRead
	}
	return permissions.ClassWrite
}

// Summary implements [Summarizer].
func (t *backupTool) Summary(args json.RawMessage) string {
	a, err := t.decode(args)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(a.Action + " " + a.Name)
}

// Ordered tells the agent to run the backup calls of one response in call
// order: create, then verify.
func (t *backupTool) Ordered() bool { return true }

func (t *backupTool) run(ctx context.Context, a backupArgs) providers.ToolResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, exists, err := t.openFolder(a.Action == "create")
	if err != nil {
		return errorResult("%s.", capitalize(err.Error()))
	}
	if exists {
		defer f.close()
	}
	switch a.Action {
	case "create":
		return t.create(ctx, f)
	case "list":
		return t.list(f)
	}
	name, err := t.archiveName(f, a.Name)
	if err != nil {
		return errorResult("%s", err)
	}
	if a.Action == "verify" {
		return t.verify(ctx, f, name)
	}
	return t.restore(ctx, f, name, a.Confirm)
}

// folderShown is how the model sees the backup folder; f is nil when it
// does not exist.
func (t *backupTool) folderShown(f *backupFolder) string {
	switch {
	case f != nil:
		return t.shown(f.real)
	case t.opts.Dir == "":
		return t.shown(filepath.Join(t.sb.workspace(), ".clawseed", "backups"))
	}
	return t.shown(t.opts.Dir)
}

// capitalize makes an error text a sentence.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// shown is how the model sees a path: relative to the workspace when
// inside it.
func (t *backupTool) shown(p string) string { return t.sb.display(p) }

// archiveName checks a name the model gave (a file in the backup folder,
// no path) or picks the newest archive. f is nil when the folder does not
// exist.
func (t *backupTool) archiveName(f *backupFolder, name string) (string, error) {
	if name == "" {
		var names []string
		if f != nil {
			var err error
			if names, err = f.archives(); err != nil {
				return "", fmt.Errorf("cannot read %s: %v", t.folderShown(f), err)
			}
		}
		if len(names) == 0 {
			return "", fmt.Errorf("there are no backups in %s yet", t.folderShown(f))
		}
		return names[len(names)-1], nil
	}
	name = filepath.Base(filepath.ToSlash(name)) // a path to the archive names it too
	if !strings.HasSuffix(name, backupSuffix) {
		name += backupSuffix
	}
	if f == nil {
		return "", fmt.Errorf("there is no backup %s in %s (action list shows them)", name, t.folderShown(f))
	}
	if _, err := f.root.Lstat(name); err != nil {
		return "", fmt.Errorf("there is no backup %s in %s (action list shows them)", name, t.folderShown(f))
	}
	return name, nil
}

func (t *backupTool) list(f *backupFolder) providers.ToolResult {
	if f == nil {
		return textResult(fmt.Sprintf("No backups in %s.", t.folderShown(f)))
	}
	names, err := f.archives()
	if err != nil {
		return errorResult("Cannot read %s: %v.", t.shown(f.real), err)
	}
	if len(names) == 0 {
		return textResult(fmt.Sprintf("No backups in %s.", t.shown(f.real)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s (newest last):\n", plural(len(names), "backup"), t.shown(f.real))
	for _, n := range names {
		size := int64(0)
		if fi, err := f.root.Stat(n); err == nil {
			size = fi.Size()
		}
		fmt.Fprintf(&b, "%s  %s\n", n, formatBytes(size))
	}
	return textResult(strings.TrimSuffix(b.String(), "\n"))
}

// dirCount is plural for "directory".
func dirCount(n int) string {
	if n == 1 {
		return "1 directory"
	}
	return fmt.Sprintf("%d directories", n)
}

// formatBytes prints a size in B, KB, MB or GB (powers of 1024).
func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}

// backupStats counts what create stored and skipped.
type backupStats struct {
	files, links, dirs             int
	bytes                          int64
	git, nodeModules, ignored      int
	forbidden, special, unreadable int
	outsideLinks                   int
}

// create walks the backed-up folders into a new archive: regular files,
// directories and symlinks (stored as links, never followed; links that
// lead out of the workspace are left out, as restore refuses them); .git,
// node_modules, the backup folder, paths .gitignore ignores and forbidden
// paths are skipped.
func (t *backupTool) create(ctx context.Context, folder *backupFolder) providers.ToolResult {
	ws := realOrSelf(t.sb.workspace())
	roots, err := t.roots(ws)
	if err != nil {
		return errorResult("%s", err)
	}
	ignored := t.ignoredPaths(ctx)
	dir := folder.real
	name := t.newName(folder)
	tmp := "." + name + ".tmp-" + randomSuffix()
	f, err := folder.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return errorResult("Cannot create %s: %v.", t.shown(filepath.Join(dir, tmp)), err)
	}
	defer folder.root.Remove(tmp) // after the rename, a no-op
	w := &backupWriter{t: t, ws: ws, dir: dir, ignored: ignored, sum: sha256.New()}
	w.gz = gzip.NewWriter(io.MultiWriter(f, w.sum))
	w.tw = tar.NewWriter(w.gz)
	err = w.writeAll(ctx, roots)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errorResult("Backup not created: %s", err)
	}
	final := filepath.Join(dir, name)
	if err := folder.root.Rename(tmp, name); err != nil {
		return errorResult("Backup not created: %v.", err)
	}
	sidecar := hex.EncodeToString(w.sum.Sum(nil)) + "  " + name + "\n"
	if err := folder.root.WriteFile(name+".sha256", []byte(sidecar), 0o600); err != nil {
		return errorResult("Created %s, but not its checksum file: %v.", t.shown(final), err)
	}
	var size int64
	if fi, err := folder.root.Stat(name); err == nil {
		size = fi.Size()
	}
	s := w.stats
	msg := fmt.Sprintf("Created %s: %s, %s, %s; %s of files, %s compressed.", t.shown(final),
		plural(s.files, "file"), plural(s.links, "link"), dirCount(s.dirs), formatBytes(s.bytes), formatBytes(size))
	return textResult(msg + s.skipped())
}

func (s backupStats) skipped() string {
	var parts []string
	for _, p := range []struct {
		n    int
		text string
	}{{s.git, ".git"}, {s.nodeModules, "node_modules"}, {s.ignored, "ignored by .gitignore"},
		{s.forbidden, "forbidden by [autonomy].forbidden_paths"}, {s.outsideLinks, "links leading out of the workspace"},
		{s.special, "not a file, directory or link"},
		{s.unreadable, "unreadable"}} {
		if p.n > 0 {
			text := p.text
			if p.n == 1 {
				text = strings.Replace(text, "links", "link", 1)
			}
			parts = append(parts, fmt.Sprintf("%d %s", p.n, text))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " Skipped: " + strings.Join(parts, ", ") + "."
}

// roots returns the folders to back up, as real paths inside the
// workspace.
func (t *backupTool) roots(ws string) ([]string, error) {
	if len(t.opts.Paths) == 0 {
		return []string{ws}, nil
	}
	var roots []string
	for _, p := range t.opts.Paths {
		real, err := t.sb.ResolveRead(p)
		if err != nil {
			return nil, fmt.Errorf("[backup].paths: %s", err)
		}
		if !within(real, ws) {
			return nil, fmt.Errorf("[backup].paths: %s is not inside the workspace", p)
		}
		roots = append(roots, real)
	}
	return roots, nil
}

// newName is a UTC timestamp, with a counter when one second holds two.
func (t *backupTool) newName(f *backupFolder) string {
	base := t.opts.Now().UTC().Format("20060102T150405Z")
	name := base + backupSuffix
	for i := 2; ; i++ {
		if _, err := f.root.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s-%d%s", base, i, backupSuffix)
	}
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ignoredPaths asks git which paths of the workspace .gitignore ignores
// (relative to the workspace, directories ending in "/"); nil outside a
// work tree or without git. git runs hardened like the git tool.
func (t *backupTool) ignoredPaths(ctx context.Context) map[string]bool {
	loc, err := locateGitRepo(t.sb.workspace())
	if err != nil {
		return nil
	}
	repo, err := loc.open(t.env, t.opts.Start)
	if err != nil {
		return nil
	}
	cmd := repo.command(ctx, append(slices.Clip(t.env), "GIT_OPTIONAL_LOCKS=0"),
		"ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z")
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, max: 16 << 20}
	if repo.start.run(ctx, cmd, false) != nil {
		return nil
	}
	set := map[string]bool{}
	for p := range strings.SplitSeq(out.String(), "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set
}

// A backupWriter writes one archive.
type backupWriter struct {
	t        *backupTool
	ws, dir  string
	ignored  map[string]bool
	gz       *gzip.Writer
	tw       *tar.Writer
	sum      hash.Hash
	manifest strings.Builder
	stats    backupStats
	root     *os.Root
}

func (w *backupWriter) writeAll(ctx context.Context, roots []string) error {
	root, err := os.OpenRoot(w.ws)
	if err != nil {
		return err
	}
	defer root.Close()
	w.root = root
	rules := w.t.sb.rules(true)
	for _, r := range roots {
		err := filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				w.stats.unreadable++
				return nil
			}
			return w.entry(p, d, rules)
		})
		if err != nil {
			return err
		}
	}
	if err := w.writeManifest(); err != nil {
		return err
	}
	if err := w.tw.Close(); err != nil {
		return err
	}
	return w.gz.Close()
}

// entry decides about one walked path and stores it.
func (w *backupWriter) entry(p string, d fs.DirEntry, rules *pathRules) error {
	rel, err := filepath.Rel(w.ws, p)
	if err != nil || rel == "." {
		return nil
	}
	rel = filepath.ToSlash(rel)
	skipDir := func() error {
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	}
	switch {
	case d.Name() == ".git":
		w.stats.git++
		return skipDir()
	case d.Name() == "node_modules" && d.IsDir():
		w.stats.nodeModules++
		return filepath.SkipDir
	case within(p, w.dir) || rel == backupManifest || strings.ContainsAny(rel, "\n\r"):
		return skipDir()
	case w.ignored[rel] || d.IsDir() && w.ignored[rel+"/"]:
		w.stats.ignored++
		return skipDir()
	case w.forbidden(p, rules):
		w.stats.forbidden++
		return skipDir()
	}
	info, err := d.Info()
	if err != nil {
		w.stats.unreadable++
		return nil
	}
	switch {
	case d.IsDir():
		w.stats.dirs++
		return w.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: int64(info.Mode().Perm()), ModTime: info.ModTime()})
	case d.Type()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			w.stats.unreadable++
			return nil
		}
		h := &tar.Header{Typeflag: tar.TypeSymlink, Name: rel, Linkname: target, Mode: 0o777, ModTime: info.ModTime()}
		if real, err := realPath(p); err != nil || !within(real, w.ws) || w.t.entryProblem(h, rel) != "" {
			w.stats.outsideLinks++ // restore refuses them: it never creates a way out
			return nil
		}
		w.stats.links++
		return w.tw.WriteHeader(h)
	case info.Mode().IsRegular():
		return w.file(rel, info)
	}
	w.stats.special++
	return nil
}

// forbidden reports a path under a forbidden entry (links count by their
// own path: they are stored, not followed).
func (w *backupWriter) forbidden(p string, rules *pathRules) bool {
	root, ok := rules.root(p, true)
	return !ok || rules.isForbidden(p, root, true)
}

// file stores a regular file, read through the workspace root so that a
// file swapped for a link after the walk cannot lead outside.
func (w *backupWriter) file(rel string, info fs.FileInfo) error {
	if w.stats.files >= w.t.opts.MaxFiles {
		return fmt.Errorf("the workspace has more than %d files to back up; list the folders that matter in [backup].paths", w.t.opts.MaxFiles)
	}
	if w.stats.bytes+info.Size() > w.t.opts.MaxBytes {
		return fmt.Errorf("the files to back up exceed %s; list the folders that matter in [backup].paths", formatBytes(w.t.opts.MaxBytes))
	}
	f, err := w.root.Open(filepath.FromSlash(rel))
	if err != nil {
		w.stats.unreadable++
		return nil
	}
	defer f.Close()
	if err := w.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Size: info.Size(), Mode: int64(info.Mode().Perm()), ModTime: info.ModTime()}); err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w.tw, h), io.LimitReader(f, info.Size()))
	if err != nil {
		return fmt.Errorf("reading %s: %v", rel, err)
	}
	if n < info.Size() {
		return fmt.Errorf("%s shrank while it was being backed up", rel)
	}
	w.stats.files++
	w.stats.bytes += n
	fmt.Fprintf(&w.manifest, "%x  %s\n", h.Sum(nil), rel)
	return nil
}

func (w *backupWriter) writeManifest() error {
	data := w.manifest.String()
	if err := w.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: backupManifest, Size: int64(len(data)), Mode: 0o644,
		ModTime: w.t.opts.Now()}); err != nil {
		return err
	}
	_, err := io.WriteString(w.tw, data)
	return err
}

// backupEntryName checks an archive entry's name: relative, clean, inside
// the workspace. It returns the name without a directory's trailing "/".
func backupEntryName(name string) (string, error) {
	n := strings.TrimSuffix(name, "/")
	switch {
	case n == "" || strings.ContainsRune(n, 0):
		return "", fmt.Errorf("an entry has an empty or invalid name")
	case path.IsAbs(n) || strings.HasPrefix(n, `\`) || filepath.VolumeName(n) != "":
		return "", fmt.Errorf("entry %q has an absolute name", name)
	case !filepath.IsLocal(filepath.FromSlash(n)) || path.Clean(n) != n:
		return "", fmt.Errorf("entry %q leaves the workspace or is not a clean path", name)
	}
	return n, nil
}
