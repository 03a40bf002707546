// Package tools owns clawseed's built-in core tools (file_read, file_write,
// file_edit, glob_search, content_search, shell) and the workspace sandbox that
// confines them.
//
// Every tool is one file plus an embedded Markdown description. Arguments are
// described by a Go struct from which the JSON Schema is generated once
// (github.com/google/jsonschema-go); each call is validated against that schema
// before it is decoded, so the schema the model sees and the parser cannot
// drift apart. A tool never returns a Go error and never panics: every failure
// is a [providers.ToolResult] with IsError set and a sentence the model can act
// on.
//
// The agent owns concurrency, per-call timeouts and the final output cap; the
// tools own argument validation, workspace confinement and their own, earlier
// output limits (so that their truncation notes, e.g. "use offset=N to read
// more", are accurate).
package tools
