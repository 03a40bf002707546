package app

import (
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/tools"
)

// memoryExtraction returns the agent's background memory extraction
// (runtime/agent/extract.go) when [memory].extract is "auto" and the
// session has memory; nil otherwise.
//
// Its tools are made here, for it alone: file_read, content_search and
// glob_search over a sandbox of their own rooted in the memory folders
// (never the workspace's sandbox, and no command: content_search searches
// in Go), and memory_recall, memory_store and memory_forget over the
// session's store, whose Save and Forget validate each memory, choose its
// file inside the folders and take the folder lock (with the postgres
// backend, the memories are rows: it has the three memory tools and no
// folder to read). The agent pre-approves
// the two writes: they cannot leave the memory folders, and those are no
// control path — unless [memory].dir was put inside one other than
// CLAWSEED_HOME (a skill root, .claude/, the workspace's .git …), where a
// memory file could become a skill or a setting; then extraction is off.
func memoryExtraction(cfg *config.Config, control *tools.ControlPaths, store MemoryStore, maxOutput int, log *slog.Logger) *agent.Extraction {
	return memoryExtractionSoon(cfg, control, store, maxOutput, log)()
}

// memoryExtractionSoon is memoryExtraction with its check of the memory
// folders against the control paths, which stats every control path,
// started now in the background, so that it overlaps the rest of a
// session's start. The function it returns waits for
// the check and makes the extraction; the warning is logged then, in
// order with the caller's other messages.
func memoryExtractionSoon(cfg *config.Config, control *tools.ControlPaths, store MemoryStore, maxOutput int, log *slog.Logger) func() *agent.Extraction {
	if store == nil || cfg.Memory.Extract != "auto" {
		return func() *agent.Extraction { return nil }
	}
	user, project := store.Folders()
	folders := []string{user}
	if project != "" {
		folders = []string{project, user}
	}
	type inControl struct{ folder, name string }
	checked := soon(func() *inControl {
		for _, f := range folders {
			if name, ok := memoryControlPath(cfg, control, f); ok {
				return &inControl{f, name}
			}
		}
		return nil
	})
	return sync.OnceValue(func() *agent.Extraction {
		if in := checked(); in != nil {
			log.Warn("Memory extraction off: the memory folder is inside a control path", "folder", in.folder, "control_path", in.name)
			return nil
		}
		return newMemoryExtraction(cfg, store, folders, maxOutput)
	})
}

// newMemoryExtraction is memoryExtraction once its memory folders were found
// outside the control paths.
func newMemoryExtraction(cfg *config.Config, store MemoryStore, folders []string, maxOutput int) *agent.Extraction {
	files := memoryFiles(store)
	var list []tools.Tool
	if files != nil {
		list = tools.MemoryReadTools(tools.MemoryReadOptions{
			Folders: folders, Forbidden: cfg.Autonomy.ForbiddenPaths, Workspace: cfg.Workspace, Home: homeDir(),
			MaxOutputChars: maxOutput,
		})
	}
	// Its memory_store is the session's: in daily_log mode (files only)
	// it appends to today's log like the model's own, never a topic file
	// mid-session (`memory distill` makes those).
	storeTool := tools.NewMemoryStore(store)
	if cfg.Memory.Mode == config.MemoryModeDailyLog && files != nil {
		storeTool = tools.NewMemoryLog(files)
	}
	list = append(list, tools.NewMemoryRecall(store), storeTool, tools.NewMemoryForget(store))
	ex := &agent.Extraction{
		Folder: folders[0],
		Memory: func() string { return memoryState(store) },
		InMemory: func(path string) bool {
			return inFolder(store.Dir(), path, cfg.Workspace)
		},
	}
	for _, t := range list {
		ex.Tools = append(ex.Tools, t)
	}
	return ex
}

// memoryState is the memory as the extractor is shown it: each folder, what
// goes there, and its MEMORY.md as it is now on disk.
func memoryState(store MemoryStore) string {
	user, project := store.Folders()
	userIndex, projectIndex := store.Indexes()
	var b strings.Builder
	part := func(title, folder, holds, index string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("### " + title + " — " + folder + "\n\n" + holds + "\n\n")
		if index = strings.TrimSpace(index); index == "" {
			index = "(empty)"
		}
		b.WriteString(index)
	}
	if project != "" {
		part("Project memory", project, "Types project and reference; this workspace only.", projectIndex)
	}
	part("User memory", user, "Types user and feedback; shared by every project.", userIndex)
	return b.String()
}

// inFolder reports whether path (absolute, or relative to workspace) lies
// in dir, as written or with its links resolved.
func inFolder(dir, path, workspace string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(workspace, path)
	}
	path = filepath.Clean(path)
	return confine.Within(path, dir) || confine.Within(confine.RealOrSelf(path), confine.RealOrSelf(dir))
}
