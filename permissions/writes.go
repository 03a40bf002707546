package permissions

// A FileWrite is one file a tool call will write, as the tool names it
// before the call runs. Tools that write files report them (the agent's
// optional interface `Writes(args) []FileWrite`), so that a write to a
// control path (a file that decides what the runtime runs or allows) is
// asked about with its content shown, whatever the autonomy policy says.
type FileWrite struct {
	// Path is the file written: absolute, or relative to the workspace.
	Path string
	// Content is the file's whole new content when the tool knows it
	// before running (file_write, file_edit); nil when it does not.
	Content []byte
	// Detail is shown instead of Content when set: the change a call makes
	// when its result is not known yet, or the fields of a generated file.
	Detail string
}
