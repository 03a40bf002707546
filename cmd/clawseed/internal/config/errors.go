package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Error is a configuration error: malformed TOML, an unknown key, a wrong
// type, an invalid value, or an unset variable that is used. The CLI exits 2
// on it.
type Error struct {
	// File is the config file, "" when the value came from the environment
	// or a flag.
	File string
	// Line is 1-based; 0 when unknown.
	Line int
	// Key is the dotted key ("agent.max_tool_iterations"), or the variable
	// or flag name for environment and flag values; may be "".
	Key string
	// Msg says what is wrong.
	Msg string
}

// Error returns "FILE:LINE: MSG", "FILE: MSG" without a line, or MSG alone
// without a file.
func (e *Error) Error() string {
	switch {
	case e.File == "":
		return e.Msg
	case e.Line <= 0:
		return e.File + ": " + e.Msg
	}
	return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// origin is the layer that set a key.
type origin struct {
	file string
	line int
	env  string // variable name
	flag string // flag name without dashes
}

func (o origin) String() string {
	switch {
	case o.env != "":
		return "env " + o.env
	case o.flag != "":
		return "flag --" + o.flag
	case o.line > 0:
		return o.file + ":" + strconv.Itoa(o.line)
	}
	return o.file
}

// errAt builds an Error located where o set key.
func (o origin) errAt(key, msg string) *Error {
	return &Error{File: o.file, Line: o.line, Key: key, Msg: msg}
}

// unresolved records a ${VAR} without default whose variable was unset.
type unresolved struct {
	name string // the variable
	at   origin
	list bool // the key is a list; one of its elements is unusable
}

// NoProviderError means no provider is configured and none could be
// auto-detected. Its message says exactly how to configure one.
type NoProviderError struct {
	// ConfigPath is the user config file the message suggests editing.
	ConfigPath string
	// Untrusted, when not "", says which provider settings of an
	// untrusted workspace's project file were ignored (and how to trust
	// it): the likely reason nothing is configured.
	Untrusted string
}

// Error returns the multi-line explanation, without a trailing newline.
func (e *NoProviderError) Error() string {
	var b strings.Builder
	b.WriteString("no LLM provider configured.\n")
	if e.Untrusted != "" {
		b.WriteString(e.Untrusted + ".\n")
	}
	b.WriteString("Set one of these environment variables:\n")
	for _, d := range autoDetect() {
		fmt.Fprintf(&b, "  %-32s(%s)\n", "export "+d.env+"=...", d.label)
	}
	fmt.Fprintf(&b, "or start Ollama on localhost:11434, or add to %s:\n", e.ConfigPath)
	b.WriteString("  [providers]\n")
	b.WriteString("  default = \"main\"\n")
	b.WriteString("  [providers.models.main]\n")
	b.WriteString("  provider = \"openai-compatible\"\n")
	b.WriteString("  base_url = \"http://localhost:8000/v1\"\n")
	b.WriteString("  model = \"my-model\"")
	return b.String()
}

// displayPath abbreviates a path under the user's home as ~/....
func displayPath(p, userHome string) string {
	if userHome == "" {
		return p
	}
	rel, err := filepath.Rel(userHome, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	if rel == "." {
		return "~"
	}
	return "~/" + filepath.ToSlash(rel)
}
