package tools

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/providers"
)

// maxListed bounds the paths a result names one by one.
const maxListed = 20

// An archiveCheck is what verify learned about an archive.
type archiveCheck struct {
	files, links, dirs int
	existing           []string // files and links the restore would replace
	blocked            []string // why entries would not be restored
	problems           []string
	sidecar            string // "", "ok", or "missing"
}

func (c *archiveCheck) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// walkArchive reads an archive's entries in order, checking each one's name
// and type and the total size, and calls visit for the entries to restore
// (not the manifest, whose content it returns).
func (t *backupTool) walkArchive(ctx context.Context, folder *backupFolder, file string, c *archiveCheck,
	visit func(h *tar.Header, name string, body io.Reader) error) (manifest string, err error) {
	f, err := folder.open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return "", fmt.Errorf("not a gzip file: %v", err)
	}
	tr := tar.NewReader(gz)
	var total int64
	for count := 0; ; count++ {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		h, err := tr.Next()
		if err == io.EOF {
			return manifest, nil
		}
		if err != nil {
			return "", fmt.Errorf("the archive is damaged: %v", err)
		}
		total += max(h.Size, 0)
		if count >= t.opts.MaxFiles || total > t.opts.MaxBytes {
			return "", fmt.Errorf("the archive holds more than %d entries or %s", t.opts.MaxFiles, formatBytes(t.opts.MaxBytes))
		}
		if h.Name == backupManifest && h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(io.LimitReader(tr, 64<<20))
			if err != nil {
				return "", fmt.Errorf("the archive is damaged: %v", err)
			}
			manifest = string(b)
			continue
		}
		name, err := backupEntryName(h.Name)
		if err != nil {
			c.problem("%v", err)
			continue
		}
		if msg := t.entryProblem(h, name); msg != "" {
			c.problem("%s", msg)
			continue
		}
		if err := visit(h, name, tr); err != nil {
			return "", err
		}
	}
}

// entryProblem refuses entry types other than files, directories and
// symlinks, and links that lead out of the workspace.
func (t *backupTool) entryProblem(h *tar.Header, name string) string {
	if slices.Contains(strings.Split(name, "/"), ".git") {
		return fmt.Sprintf("entry %s is inside .git, which backups never hold", name)
	}
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeDir:
		return ""
	case tar.TypeSymlink:
		target := h.Linkname
		if path.IsAbs(target) {
			if !within(path.Clean(target), realOrSelf(t.sb.workspace())) {
				return fmt.Sprintf("link %s points outside the workspace (%s)", name, target)
			}
			return ""
		}
		if !filepath.IsLocal(filepath.FromSlash(path.Join(path.Dir(name), target))) {
			return fmt.Sprintf("link %s points outside the workspace (%s)", name, target)
		}
		return ""
	case tar.TypeLink:
		return fmt.Sprintf("entry %s is a hard link", name)
	case tar.TypeChar, tar.TypeBlock:
		return fmt.Sprintf("entry %s is a device file", name)
	case tar.TypeFifo:
		return fmt.Sprintf("entry %s is a named pipe", name)
	}
	return fmt.Sprintf("entry %s has unsupported type %q", name, h.Typeflag)
}

// check verifies an archive: its checksum file, every entry, and every
// file against the manifest.
func (t *backupTool) check(ctx context.Context, folder *backupFolder, name string) (*archiveCheck, error) {
	c := &archiveCheck{sidecar: "missing"}
	if err := checkSidecar(folder, name, c); err != nil {
		return nil, err
	}
	sums := map[string]string{}
	ws := realOrSelf(t.sb.workspace())
	manifest, err := t.walkArchive(ctx, folder, name, c, func(h *tar.Header, n string, body io.Reader) error {
		switch h.Typeflag {
		case tar.TypeDir:
			c.dirs++
			return nil
		case tar.TypeSymlink:
			c.links++
		default:
			c.files++
			s := sha256.New()
			if _, err := io.Copy(s, body); err != nil {
				return fmt.Errorf("the archive is damaged: %v", err)
			}
			sums[n] = hex.EncodeToString(s.Sum(nil))
		}
		if err := restoreAllowed(t.sb, ws, n); err != nil {
			c.blocked = append(c.blocked, err.Error())
		} else if fi, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(n))); err == nil && !fi.IsDir() {
			c.existing = append(c.existing, n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	compareManifest(c, manifest, sums)
	return c, nil
}

// checkSidecar compares the archive's SHA-256 with its .sha256 file.
func checkSidecar(folder *backupFolder, file string, c *archiveCheck) error {
	data, err := folder.readSidecar(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	want, _, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	f, err := folder.open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		c.problem("the archive's SHA-256 is %s, but %s.sha256 says %s", got, file, want)
	}
	c.sidecar = "ok"
	return nil
}

// compareManifest checks that the manifest lists exactly the archive's
// files with their checksums.
func compareManifest(c *archiveCheck, manifest string, sums map[string]string) {
	if manifest == "" && len(sums) > 0 {
		c.problem("the archive has no manifest (%s)", backupManifest)
		return
	}
	listed := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSuffix(manifest, "\n"), "\n") {
		if line == "" {
			continue
		}
		if len(line) < 67 || line[64:66] != "  " {
			c.problem("the manifest has a malformed line: %q", line)
			continue
		}
		want, n := line[:64], line[66:]
		listed[n] = true
		switch got, ok := sums[n]; {
		case !ok:
			c.problem("%s is in the manifest but not in the archive", n)
		case got != want:
			c.problem("%s does not match its checksum", n)
		}
	}
	var unlisted []string
	for n := range sums {
		if !listed[n] {
			unlisted = append(unlisted, n)
		}
	}
	slices.Sort(unlisted)
	for _, n := range unlisted {
		c.problem("%s is in the archive but not in the manifest", n)
	}
}

func (t *backupTool) verify(ctx context.Context, folder *backupFolder, name string) providers.ToolResult {
	c, err := t.check(ctx, folder, name)
	if err != nil {
		return errorResult("Cannot verify %s: %v.", name, err)
	}
	if len(c.problems) > 0 {
		return errorResult("Backup %s failed verification:\n%s", name, listLines(c.problems))
	}
	note := "its archive checksum matches " + name + ".sha256"
	if c.sidecar == "missing" {
		note = "there is no " + name + ".sha256, so the archive's own checksum was not checked"
	}
	return textResult(fmt.Sprintf("Backup %s is intact: %s match the manifest's SHA-256 checksums (%s, %s); %s.",
		name, plural(c.files, "file"), plural(c.links, "link"), dirCount(c.dirs), note))
}

// listLines renders at most maxListed items as "- item" lines.
func listLines(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i == maxListed {
			fmt.Fprintf(&b, "- and %d more\n", len(items)-maxListed)
			break
		}
		b.WriteString("- " + it + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// listInline renders at most maxListed items separated by commas.
func listInline(items []string) string {
	if len(items) > maxListed {
		return strings.Join(items[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(items)-maxListed)
	}
	return strings.Join(items, ", ")
}

// restore verifies the archive, then (with confirm) writes its entries into
// the workspace through an os.Root, each file and link replaced atomically.
// Without confirm it says what would happen.
func (t *backupTool) restore(ctx context.Context, folder *backupFolder, name string, confirm bool) providers.ToolResult {
	c, err := t.check(ctx, folder, name)
	if err != nil {
		return errorResult("Cannot restore %s: %v.", name, err)
	}
	if len(c.problems) > 0 {
		return errorResult("Backup %s was not restored; it failed verification:\n%s", name, listLines(c.problems))
	}
	if !confirm {
		over := "none of them exist now"
		if len(c.existing) > 0 {
			over = fmt.Sprintf("%d would overwrite what is there now: %s", len(c.existing), listInline(c.existing))
		}
		msg := fmt.Sprintf("Restoring %s writes %s, %s and %s into the workspace; %s. Files not in the backup are left alone. Call again with confirm: true to restore.",
			name, plural(c.files, "file"), plural(c.links, "link"), dirCount(c.dirs), over)
		if len(c.blocked) > 0 {
			msg += " These entries would not be restored:\n" + listLines(c.blocked)
		}
		return errorResult("%s", msg)
	}
	ws := realOrSelf(t.sb.workspace())
	root, err := os.OpenRoot(ws)
	if err != nil {
		return errorResult("Cannot open the workspace: %v.", err)
	}
	defer root.Close()
	r := &restorer{t: t, root: root, ws: ws, check: func(p string) error { return t.sb.checkWrite(ctx, p) }}
	_, err = t.walkArchive(ctx, folder, name, &archiveCheck{}, r.entry)
	r.checkLinks()
	if err != nil {
		return errorResult("Restoring %s stopped: %v. %s", name, err, r.summary())
	}
	res := textResult(fmt.Sprintf("Restored %s: %s", name, r.summary()))
	res.IsError = len(r.refused) > 0
	return res
}

// A restorer writes one archive's entries.
type restorer struct {
	t                 *backupTool
	root              *os.Root
	ws                string
	created, replaced []string
	links             []string
	dirs              int
	refused           []string
	// check is [Sandbox.checkWrite] with the call's approvals.
	check func(path string) error
}

func (r *restorer) summary() string {
	s := fmt.Sprintf("%s created, %s overwritten", plural(len(r.created), "file"), plural(len(r.replaced), "file"))
	if len(r.replaced) > 0 {
		s += " (" + listInline(r.replaced) + ")"
	}
	s += fmt.Sprintf(", %s, %s. Files added since the backup were left in place.", plural(len(r.links), "link"), dirCount(r.dirs))
	if len(r.refused) > 0 {
		s += " Not restored:\n" + listLines(r.refused)
	}
	return s
}

func (r *restorer) entry(h *tar.Header, name string, body io.Reader) error {
	if err := r.allowed(name); err != nil {
		r.refused = append(r.refused, err.Error())
		return nil
	}
	rel := filepath.FromSlash(name)
	fi, statErr := r.root.Lstat(rel)
	exists := statErr == nil
	if exists && fi.IsDir() && h.Typeflag != tar.TypeDir {
		r.refused = append(r.refused, name+" is a directory in the workspace")
		return nil
	}
	var err error
	switch h.Typeflag {
	case tar.TypeDir:
		if err = r.write(rel, confine.Entry{Dir: true, Mode: fs.FileMode(h.Mode).Perm() | 0o700}); err == nil {
			r.dirs++
		}
	case tar.TypeSymlink:
		if err = r.write(rel, confine.Entry{Link: h.Linkname}); err == nil {
			r.links = append(r.links, name)
		}
	default:
		e := confine.Entry{Content: io.LimitReader(body, h.Size), Mode: fs.FileMode(h.Mode).Perm(), ModTime: h.ModTime}
		if err = r.write(rel, e); err == nil {
			if exists {
				r.replaced = append(r.replaced, name)
			} else {
				r.created = append(r.created, name)
			}
		}
	}
	if pr, ok := errors.AsType[*pathRefusal](err); ok {
		r.refused = append(r.refused, pr.Error())
	} else if err != nil {
		r.refused = append(r.refused, fmt.Sprintf("%s: %v", name, err))
	}
	return nil
}

// write puts one entry at rel through the file tools' writer
// ([confine.WriteEntry]): the folder reached without following a link,
// the entry checked where it lands ([Sandbox.checkWrite]) against the
// control paths the restore was approved to write, a link at rel replaced
// rather than followed.
func (r *restorer) write(rel string, e confine.Entry) error {
	return confine.WriteEntry(r.ws, rel, e, r.check)
}

// allowed checks an entry's path with the sandbox: inside the workspace,
// not forbidden. A link already at the path is replaced, not followed, so
// then its folder is checked instead.
func (r *restorer) allowed(name string) error {
	return restoreAllowed(r.t.sb, r.ws, name)
}

// restoreAllowed is restorer.allowed for a workspace ws.
func restoreAllowed(sb *Sandbox, ws, name string) error {
	rel := filepath.FromSlash(name)
	abs := filepath.Join(ws, rel)
	fi, err := os.Lstat(abs)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		_, err := sb.ResolveWrite(rel)
		return err
	}
	if _, err := sb.ResolveWrite(filepath.Dir(rel)); err != nil {
		return err
	}
	rules := sb.rules(false)
	if root, ok := rules.root(abs, true); !ok || rules.isForbidden(abs, root, true) {
		return refusal("Path %s is forbidden by [autonomy].forbidden_paths.", name)
	}
	return nil
}

// checkLinks removes restored links that resolve outside the workspace
// through other links (each one was checked on its own before).
func (r *restorer) checkLinks() {
	kept := r.links[:0]
	for _, n := range r.links {
		abs := filepath.Join(r.ws, filepath.FromSlash(n))
		if real, err := realPath(abs); err != nil || !within(real, r.ws) {
			_ = r.root.Remove(filepath.FromSlash(n))
			r.refused = append(r.refused, fmt.Sprintf("link %s was removed: it resolves outside the workspace", n))
			continue
		}
		kept = append(kept, n)
	}
	r.links = kept
}
