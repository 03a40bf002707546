package tools

import (
	"archive/tar"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/clawseed/clawseed/permissions"
)

// Bounds of the contents a restore's [backupTool.Writes] reads ahead: a
// file's content is shown when it is small, and the files together stay
// small; beyond, the write is named with its size.
const (
	maxWriteShown      = 64 << 10
	maxWriteShownTotal = 1 << 20
)

// Writes implements the agent's file-writer interface: the files a
// confirmed restore writes, so that a restore over control paths (the
// project's config, skills, identity files) is asked about with their
// contents shown. The archive is read as the restore will read it; other
// actions write no file the agent must hold (create writes the archive
// into the backup folder, which is the tool's own).
func (t *backupTool) Writes(args json.RawMessage) []permissions.FileWrite {
	a, err := t.decode(args)
	if err != nil || a.Action != "restore" || !a.Confirm {
		return nil
	}
	folder, exists, err := t.openFolder(false)
	if err != nil || !exists {
		return nil
	}
	defer folder.close()
	name, err := t.archiveName(folder, a.Name)
	if err != nil {
		return nil
	}
	ws := realOrSelf(t.sb.workspace())
	var out []permissions.FileWrite
	var shown int64
	_, _ = t.walkArchive(context.Background(), folder, name, &archiveCheck{}, func(h *tar.Header, n string, body io.Reader) error {
		w := permissions.FileWrite{Path: filepath.Join(ws, filepath.FromSlash(n))}
		switch h.Typeflag {
		case tar.TypeDir:
			return nil
		case tar.TypeSymlink:
			w.Detail = "a link to " + h.Linkname + " (from backup " + name + ")"
		default:
			if h.Size <= maxWriteShown && shown+h.Size <= maxWriteShownTotal {
				data, err := io.ReadAll(io.LimitReader(body, h.Size))
				if err != nil {
					return err
				}
				w.Content, shown = data, shown+int64(len(data))
			} else {
				w.Detail = fmt.Sprintf("%d bytes from backup %s (not shown)", h.Size, name)
			}
		}
		out = append(out, w)
		return nil
	})
	return out
}
