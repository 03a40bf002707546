package app

import (
	"fmt"
	"path/filepath"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/imagefile"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools"
)

// attachPath is where a file the user named is: rel joined to the
// workspace unless it is absolute.
func (s *Session) attachPath(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(s.cfg.Workspace, filepath.FromSlash(rel))
}

// Attach reads a file the user named in chat (@path, a pasted or dropped
// path) through the same read check as [Session.ReadAttachment]: a
// regular file whose real path is inside the workspace and outside
// forbidden_paths. An image (by content: PNG, JPEG, GIF, WebP, up to
// [imagefile.MaxInput]) comes back prepared for the model
// ([tools.LoadImage]); any other file is text, up to MaxAttachment.
func (s *Session) Attach(rel string) (repl.Attachment, error) {
	path := s.attachPath(rel)
	data, err := confine.Read(path, s.sb.ConfineOptions(imagefile.MaxInput))
	if err != nil {
		return repl.Attachment{}, err
	}
	if imagefile.IsImage(data) {
		im, note, err := tools.LoadImage(data, rel)
		if err != nil {
			return repl.Attachment{}, err
		}
		return repl.Attachment{Image: &im, Note: note}, nil
	}
	if len(data) > MaxAttachment {
		// Read again under the text cap, for the refusal that names it
		// (before reading: the file is not read twice).
		if _, err := confine.Read(path, s.sb.ConfineOptions(MaxAttachment)); err != nil {
			return repl.Attachment{}, err
		}
		return repl.Attachment{}, fmt.Errorf("%s is larger than %d bytes", rel, MaxAttachment)
	}
	return repl.Attachment{Text: string(data)}, nil
}

// ReadImage reads an image the user gave on the command line (run
// --image FILE) with the rules of [Session.Attach]; a file that is no
// image is an error.
func (s *Session) ReadImage(rel string) (providers.Image, error) {
	data, err := confine.Read(s.attachPath(rel), s.sb.ConfineOptions(imagefile.MaxInput))
	if err != nil {
		return providers.Image{}, fmt.Errorf("%s: %s", rel, confine.Why(err))
	}
	im, _, err := tools.LoadImage(data, rel)
	return im, err
}
