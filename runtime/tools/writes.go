package tools

import (
	"encoding/json"

	"github.com/clawseed/clawseed/permissions"
)

// A writerTool is a summaryTool whose calls write files it can name before
// they run: the agent asks about writes to control paths
// ([ControlPaths]) whatever the autonomy policy says, showing the content.
type writerTool[T any] struct {
	*summaryTool[T]
	writes func(T) []permissions.FileWrite
	// path, when set, names the one file a call writes as a file
	// (file_write, file_edit): see [Toucher].
	path func(T) string
}

// withWrites gives a tool a summary and the files its calls write.
func withWrites[T any](t *typedTool[T], summary func(T) string, writes func(T) []permissions.FileWrite) Tool {
	return &writerTool[T]{summaryTool: &summaryTool[T]{typedTool: t, summary: summary}, writes: writes}
}

// withFileWrites is withWrites for a tool whose calls write the one file
// path names, which is also their summary.
func withFileWrites[T any](t *typedTool[T], path func(T) string, writes func(T) []permissions.FileWrite) Tool {
	return &writerTool[T]{summaryTool: &summaryTool[T]{typedTool: t, summary: path}, writes: writes, path: path}
}

// Touches implements [Toucher].
func (t *writerTool[T]) Touches(args json.RawMessage) []string {
	return touched(t.typedTool, t.path, args)
}

// Writes returns the files a call will write (nil for arguments the call
// would refuse: it then writes nothing). The arguments are decoded as Run
// decodes them.
func (t *writerTool[T]) Writes(args json.RawMessage) []permissions.FileWrite {
	v, err := t.decode(args)
	if err != nil {
		return nil
	}
	return t.writes(v)
}
