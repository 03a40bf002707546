package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/tools"
)

// identityFiles reads the workspace's identity files (SOUL.md, USER.md, …;
// AGENTS.md is a project instruction file: instructions.go) once for the
// session. A repository supplies them and they reach the first
// request with no tool call, so each goes through [confine.Read] with the
// file tools' read check: a regular file of at most
// [confine.MaxIdentityFile] bytes whose real path is inside the workspace
// and outside forbidden_paths. Any other is left out with a warning on
// warn; a missing one silently. Nothing is read when [agent].system_prompt
// replaces the section.
func identityFiles(cfg *config.Config, sb *tools.Sandbox, warn io.Writer) []agent.IdentityFile {
	if strings.TrimSpace(cfg.Agent.SystemPrompt) != "" || cfg.Bare {
		return nil // replaced, or --bare: nothing read from the workspace
	}
	opt := sb.ConfineOptions(confine.MaxIdentityFile)
	var out []agent.IdentityFile
	for _, name := range agent.IdentityFileNames() {
		data, err := confine.Read(filepath.Join(cfg.Workspace, name), opt)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			if warn != nil {
				fmt.Fprintf(warn, "clawseed: warning: identity file %s not read: %s\n", name, termtext.EscapeLine(confine.Why(err)))
			}
			continue
		}
		out = append(out, agent.IdentityFile{Name: name, Text: string(data)})
	}
	return out
}
