package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// The [sandbox] table (issue 21) decides how far every command clawseed
// starts can reach. It is the user's: an untrusted project file may only
// tighten it (projectRules), and no project file, trusted or not, may turn
// it off. A repository's config changes with every pull, so trusting the
// workspace once does not let its later commits switch the sandbox off;
// that takes the user's own file, --config, or --no-sandbox. (There is no
// environment variable for it either: a repository's .envrc could set it.)

// sandboxEnabledKey is the one key a project file may never set to false.
var sandboxEnabledKey = toml.Key{"sandbox", "enabled"}

// whySandboxOff completes "ignored: " for a project file's
// `enabled = false`.
const whySandboxOff = "a project file may not turn the sandbox off (set it in your own config file, or pass --no-sandbox)"

// refuseSandboxOff drops `[sandbox] enabled = false` from a trusted
// project file's tree before it is applied, with a warning naming the
// file and line, when it would turn the sandbox off. (An untrusted project
// file gets the same through its onOnly rule, reported with the rest of
// what it did not get.)
func (d *decoder) refuseSandboxOff(tree map[string]any) {
	table, ok := tree["sandbox"].(map[string]any)
	if !ok {
		return
	}
	if on, ok := table["enabled"].(bool); !ok || on {
		return
	}
	delete(table, "enabled")
	if !d.c.Sandbox.Enabled {
		return // off already, by the user's own choice
	}
	line := d.line(sandboxEnabledKey)
	d.c.refused = append(d.c.refused, Ignored{File: d.file, Line: line, Key: sandboxEnabledKey.String(), Value: "false", Why: whySandboxOff})
	d.c.Warnings = append(d.c.Warnings, fmt.Sprintf("%s:%d: sandbox.enabled = false ignored: %s", d.file, line, whySandboxOff))
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
