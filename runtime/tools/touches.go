package tools

import "encoding/json"

// A Toucher names the files a call reads or writes as a file (file_read,
// file_write, file_edit; not a search, which lists files without reading
// them): the agent attaches the instruction files (CLAUDE.md, AGENTS.md)
// of the subfolders those files lie in after the call succeeded. Paths are
// as the model gave them: relative to the workspace, or absolute.
type Toucher interface {
	Touches(args json.RawMessage) []string
}

// A readerTool is a tool whose calls read the one file they name.
type readerTool[T any] struct {
	*typedTool[T]
	path func(T) string
}

// withReads gives a tool the file its calls read.
func withReads[T any](t *typedTool[T], path func(T) string) Tool {
	return &readerTool[T]{typedTool: t, path: path}
}

// Touches implements [Toucher].
func (t *readerTool[T]) Touches(args json.RawMessage) []string {
	return touched(t.typedTool, t.path, args)
}

// touched decodes a call's arguments as Run does and names its file (none
// for arguments the call would refuse, or an empty path).
func touched[T any](t *typedTool[T], path func(T) string, args json.RawMessage) []string {
	if path == nil {
		return nil
	}
	v, err := t.decode(args)
	if err != nil || path(v) == "" {
		return nil
	}
	return []string{path(v)}
}

// A Searcher names the folder (or file) a search call searches
// (content_search, glob_search): the agent looks for the skill folders on
// the way to it after the call succeeded, as it does for a [Toucher]'s
// files. Paths are as the model gave them, relative to the workspace
// ("" for the workspace itself), or absolute.
type Searcher interface {
	Searches(args json.RawMessage) []string
}

// A searcherTool is a tool whose calls search the folder path names.
type searcherTool[T any] struct {
	*typedTool[T]
	path func(T) string
}

// withSearches gives a tool the folder its calls search.
func withSearches[T any](t *typedTool[T], path func(T) string) Tool {
	return &searcherTool[T]{typedTool: t, path: path}
}

// Searches implements [Searcher].
func (t *searcherTool[T]) Searches(args json.RawMessage) []string {
	return touched(t.typedTool, t.path, args)
}
