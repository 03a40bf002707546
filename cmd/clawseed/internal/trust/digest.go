package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// Trust covers a workspace's command-bearing files as they were when the
// user trusted it. The OS sandbox binds the control paths that exist when
// a command starts read-only, but an auto-approved sandboxed command can
// still create a missing one (a .mcp.json, a .claude/ or .clawseed/ folder
// with settings), and a trusted workspace would honour it at the next
// start: its MCP servers (with network), hooks and allow rules would run
// what nobody approved. So Grant records the state of each of these files
// and a workspace whose files changed is not trusted until the user says
// so again.

// Absent is the recorded state of a project file that does not exist.
const Absent = "absent"

// digestPrefix starts the recorded state of a project file that exists.
const digestPrefix = "sha256:"

// maxProjectFile caps what is read of each project file: all of them have
// this cap where clawseed reads them (confine.MaxConfigFile, MaxMCPJSON,
// MaxSettingsJSON); a larger one is recorded as refused, as it is read.
const maxProjectFile = 1 << 20

// ProjectFiles are the workspace-relative names (sorted, slash-separated)
// of the files whose state an exact trust entry records: the project
// config (and its legacy name, read when config.toml is missing), the MCP
// servers, and Claude Code's project settings (hooks, allow rules).
func ProjectFiles() []string {
	return []string{
		".claude/settings.json",
		".claude/settings.local.json",
		".clawseed/clawseed.toml",
		".clawseed/config.toml",
		".mcp.json",
	}
}

// isProjectFile reports whether name is one of [ProjectFiles].
func isProjectFile(name string) bool {
	for _, f := range ProjectFiles() {
		if f == name {
			return true
		}
	}
	return false
}

// validState reports whether s is a state the trust file may hold.
func validState(s string) bool {
	if s == Absent {
		return true
	}
	h, ok := strings.CutPrefix(s, digestPrefix)
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// snapshot is the state of every project file of the workspace ws (a real
// path), by name.
func snapshot(ws string) map[string]string {
	out := make(map[string]string, len(ProjectFiles()))
	for _, name := range ProjectFiles() {
		out[name] = fileState(ws, name)
	}
	return out
}

// fileState is [Absent], or "sha256:" and the digest of name and what the
// file is: each symbolic link on the way by its text (a link counts as
// what it is, so retargeting one is a change), then what clawseed's
// reader of project files gets — the content (read within the workspace,
// capped, a FIFO or device never opened) or why it is refused. So any
// change that could change what a session reads from it changes the state.
func fileState(ws, name string) string {
	var desc strings.Builder
	p := ws
	parts := strings.Split(name, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		rel := strings.Join(parts[:i+1], "/")
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if desc.Len() == 0 {
				return Absent
			}
			desc.WriteString("absent " + rel + "\n")
			return digest(name, desc.String())
		case err != nil:
			desc.WriteString("unreadable " + rel + ": " + confine.Why(err) + "\n")
			return digest(name, desc.String())
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				target = "(unreadable: " + confine.Why(err) + ")"
			}
			desc.WriteString("link " + rel + " -> " + target + "\n")
		}
	}
	data, err := confine.Read(p, confine.Options{Roots: []string{ws}, Max: maxProjectFile})
	switch {
	case err == nil:
		desc.WriteString("file\n")
		desc.Write(data)
	case errors.Is(err, fs.ErrNotExist):
		desc.WriteString("absent\n") // a link to nothing
	default:
		desc.WriteString("refused: " + confine.Why(err) + "\n")
	}
	return digest(name, desc.String())
}

// digest is the recorded state of an existing file: its name and
// description hashed together.
func digest(name, desc string) string {
	sum := sha256.Sum256([]byte(name + "\x00" + desc))
	return digestPrefix + hex.EncodeToString(sum[:])
}

// changedFiles are the names of [ProjectFiles] whose state in cur differs
// from recorded (a name recorded by no state counts as changed), sorted.
func changedFiles(recorded, cur map[string]string) []string {
	var out []string
	for _, name := range ProjectFiles() {
		if r, ok := recorded[name]; !ok || r != cur[name] {
			out = append(out, name)
		}
	}
	return out
}
