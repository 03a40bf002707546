package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// The [sandbox] table (issue 21) decides how far every command clawseed
// starts can reach. It is the user's: a project file, trusted or not, may
// only narrow it. A repository's config changes with every pull, so
// trusting the workspace once does not let its later commits switch the
// sandbox off, drop its requirement, open the network to commands or make
// folders outside the workspace writable (writable = ["~"] would let an
// auto-approved command append to ~/.bashrc); that takes the user's own
// file, --config, or --no-sandbox. (There is no environment variable for
// it either: a repository's .envrc could set it.)
//
// The same holds for the sandbox of the MCP servers a trusted project
// file defines (an untrusted one's never start): their writable folders
// may be inside the workspace, or ones the user's own entry of that server
// lists, never elsewhere.
//
// An untrusted project file gets this through projectRules (onOnly,
// tighten, ignored), reported with the rest of what it did not get; a
// trusted one through narrowSandbox, with a warning. Which keys, and what
// widens each, is sandboxWidens.

// narrowedSandboxKeys are the keys of [sandbox] a project file may only narrow,
// in the order the table declares them.
var narrowedSandboxKeys = []toml.Key{{"sandbox", "enabled"}, {"sandbox", "required"}, {"sandbox", "network"}, {"sandbox", "writable"}}

// sandboxWidens reports whether the value of key in now reaches further
// than in before, and if so why a project file may not set it (completing
// "ignored: ").
func sandboxWidens(key toml.Key, before, now *Config) (why string, widens bool) {
	const own = "set it in your own config file"
	switch key.String() {
	case "sandbox.enabled":
		return whySandboxOff, before.Sandbox.Enabled && !now.Sandbox.Enabled
	case "sandbox.required":
		return "a project file may not stop requiring the sandbox (" + own + ")",
			before.Sandbox.Required && !now.Sandbox.Required
	case "sandbox.network":
		// An invalid value is left for validate to report at its line.
		return "a project file may not let commands use the network (" + own + ")",
			now.Sandbox.NetworkOn() && !before.Sandbox.NetworkOn()
	case "sandbox.writable":
		user := before.SandboxWritable()
		for _, p := range now.SandboxWritable() {
			if !slices.Contains(user, p) {
				return "a project file may not let commands write outside the workspace, only drop folders of your list (" + own + ")", true
			}
		}
	}
	if isMCPWritable(key) {
		name := key[2]
		user := now.resolveAll(before.MCP.Servers[name].Writable)
		for _, p := range now.resolveAll(now.MCP.Servers[name].Writable) {
			if !slices.Contains(user, p) && !within(realPrefix(p), now.Workspace) {
				return fmt.Sprintf("a project file may not let an MCP server write outside the workspace (%s; %s)", p, own), true
			}
		}
	}
	return "", false
}

// isMCPWritable reports whether key is an MCP server's writable list.
func isMCPWritable(key toml.Key) bool {
	return len(key) == 4 && key[0] == "mcp" && key[1] == "servers" && key[3] == "writable"
}

// narrowedKeys are the keys tree sets that may only narrow the sandbox:
// narrowedSandboxKeys, then each MCP server's writable, by name.
func narrowedKeys(tree map[string]any) []toml.Key {
	keys := slices.Clone(narrowedSandboxKeys)
	mcp, _ := tree["mcp"].(map[string]any)
	servers, _ := mcp["servers"].(map[string]any)
	for _, name := range sortedKeys(servers) {
		keys = append(keys, toml.Key{"mcp", "servers", name, "writable"})
	}
	return keys
}

// resolveAll resolves paths as [Config.ResolvePath] does.
func (c *Config) resolveAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, c.ResolvePath(p))
	}
	return out
}

// realPrefix resolves the links of the longest part of the absolute path
// p that exists, keeping the rest as it is: where the sandbox will find
// the folder (it resolves links), so that a repository's link
// (workspace/out -> ~) does not pass for a folder of the workspace.
func realPrefix(p string) string {
	var rest []string
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

// within reports whether the clean absolute path p is dir or lies beneath
// it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// whySandboxOff completes "ignored: " for a project file's
// `enabled = false`.
const whySandboxOff = "a project file may not turn the sandbox off (set it in your own config file, or pass --no-sandbox)"

// narrowSandbox undoes what a trusted project file (tree, applied on top
// of before) set of narrowedKeys that widens the sandbox, with a warning
// naming the file and line. It works on the decoded values, so ${VAR}
// expansion cannot slip past it.
func (d *decoder) narrowSandbox(tree map[string]any, before *Config) {
	for _, key := range narrowedKeys(tree) {
		raw, ok := lookupTree(tree, key)
		if !ok {
			continue
		}
		why, widens := sandboxWidens(key, before, d.c)
		if !widens {
			if !isMCPWritable(key) && reflect.DeepEqual(valueAt(before, key).Interface(), valueAt(d.c, key).Interface()) {
				// The same value: the layer that chose it stays its source
				// (config show must not credit the project with the user's
				// enabled = false).
				d.c.restore(before, key)
			}
			continue
		}
		d.c.restore(before, key)
		line, value := d.line(key), shorten(rawValue(raw, key[len(key)-1]))
		d.c.refused = append(d.c.refused, Ignored{File: d.file, Line: line, Key: key.String(), Value: value, Why: why})
		d.c.Warnings = append(d.c.Warnings, fmt.Sprintf("%s:%d: %s = %s ignored: %s", d.file, line, key, value, why))
	}
}

// refusedFor returns what was refused of key in a trusted project file,
// nil when nothing.
func (c *Config) refusedFor(key string) *Ignored {
	for i := range c.refused {
		if c.refused[i].Key == key {
			return &c.refused[i]
		}
	}
	return nil
}

// checkWritable checks [sandbox].writable: every entry names a folder by
// an absolute path once "~" is expanded and a relative path is made
// absolute against the workspace.
func (c *Config) checkWritable() error {
	const key = "sandbox.writable"
	if err := c.usedAtLoad(key); err != nil {
		return err
	}
	for _, p := range c.Sandbox.Writable {
		switch tilde := strings.HasPrefix(p, "~"); {
		case strings.TrimSpace(p) == "":
			return c.invalid(key, "empty path")
		case strings.ContainsRune(p, 0):
			return c.invalid(key, fmt.Sprintf("%q: a path cannot hold a NUL byte", p))
		case tilde && p != "~" && !strings.HasPrefix(p, "~/"):
			return c.invalid(key, fmt.Sprintf("%q: only \"~\" and \"~/\" are expanded; write the folder's absolute path", p))
		case tilde && c.userHome == "":
			return c.invalid(key, fmt.Sprintf("%q: the home folder is not known, so \"~\" cannot be expanded; write an absolute path", p))
		case !filepath.IsAbs(c.ResolvePath(p)):
			return c.invalid(key, fmt.Sprintf("%q is not an absolute path after expansion", p))
		}
	}
	return nil
}

// SandboxWritable is [sandbox].writable resolved: "~" and "~/" expanded to
// the user's home, relative paths made absolute against the workspace,
// cleaned, in file order without duplicates. Every entry is absolute
// ([Load] refuses one that would not be).
func (c *Config) SandboxWritable() []string {
	out := make([]string, 0, len(c.Sandbox.Writable))
	for _, p := range c.Sandbox.Writable {
		if abs := c.ResolvePath(p); !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out
}
