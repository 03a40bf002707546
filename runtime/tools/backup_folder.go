package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/clawseed/clawseed/internal/confine"
)

// maxSidecarBytes caps an archive's .sha256 file ("SHA256  NAME\n").
const maxSidecarBytes = 4 << 10

// A backupFolder is the backup folder, open for one call of the tool.
type backupFolder struct {
	// root confines every archive read and write to the folder: a link
	// inside it cannot lead elsewhere.
	root *os.Root
	// real is the folder's real path: create skips it, messages show it.
	real string
}

func (f *backupFolder) close() { _ = f.root.Close() }

// openFolder opens the backup folder, at every call (a link can appear
// between calls), creating it when create is set. A folder inside the
// workspace — the default <workspace>/.clawseed/backups, or a [backup].dir
// there — must stay there: a repository's `.clawseed/backups ->
// ../elsewhere` (or a `.clawseed` link) would otherwise move backup writes
// and the archives restores read out of the workspace, so its real path is
// checked and it is opened through the workspace's os.Root, which refuses a
// link swapped in afterwards. A folder the user configured outside the
// workspace is theirs and used as it is. exists is false (f nil) when the
// folder does not exist and create is not set.
func (t *backupTool) openFolder(create bool) (f *backupFolder, exists bool, err error) {
	dir := t.opts.Dir
	if dir == "" {
		dir = filepath.Join(t.sb.workspace(), ".clawseed", "backups")
	}
	dir = filepath.Clean(dir)
	ws := realOrSelf(t.sb.workspace())
	rel, inside := "", false
	for _, w := range []string{t.sb.workspace(), ws} {
		if r, err := filepath.Rel(w, dir); err == nil && within(dir, w) {
			rel, inside = r, true
			break
		}
	}
	real := realOrSelf(dir)
	if !inside {
		if create {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, false, fmt.Errorf("cannot create the backup folder %s: %v", dir, err)
			}
		}
		root, err := os.OpenRoot(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("cannot open the backup folder %s: %v", dir, err)
		}
		return &backupFolder{root: root, real: real}, true, nil
	}
	shown := t.shown(dir)
	if !within(real, ws) {
		return nil, false, fmt.Errorf("the backup folder %s resolves to %s, outside the workspace: a link there would move backups out of it, so backups are refused (remove the link, or set [backup].dir)", shown, real)
	}
	if real == ws {
		return nil, false, fmt.Errorf("the backup folder %s is the workspace itself; set [backup].dir to a folder in it", shown)
	}
	wsRoot, err := os.OpenRoot(ws)
	if err != nil {
		return nil, false, fmt.Errorf("cannot open the workspace: %v", err)
	}
	defer wsRoot.Close()
	if create {
		// Created where it resolves to (a link inside the workspace may
		// lead to a folder not made yet), which was checked to be inside.
		relReal, err := filepath.Rel(ws, real)
		if err == nil {
			err = wsRoot.MkdirAll(relReal, 0o700)
		}
		if err != nil {
			return nil, false, fmt.Errorf("cannot create the backup folder %s: %v", shown, err)
		}
	}
	root, err := wsRoot.OpenRoot(rel)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot open the backup folder %s: %v", shown, err)
	}
	return &backupFolder{root: root, real: realOrSelf(dir)}, true, nil
}

// archives returns the names of the archives in the folder, oldest first
// (names are UTC timestamps).
func (f *backupFolder) archives() ([]string, error) {
	d, err := f.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), backupSuffix) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// open opens the regular file name in the folder for reading, without
// blocking on a FIFO.
func (f *backupFolder) open(name string) (*os.File, error) {
	h, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := h.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", name)
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// readSidecar reads the .sha256 file of an archive through
// [confine.Read]: a regular file in the folder, small.
func (f *backupFolder) readSidecar(name string) ([]byte, error) {
	return confine.Read(filepath.Join(f.real, name+".sha256"), confine.Options{Roots: []string{f.real}, Max: maxSidecarBytes})
}
