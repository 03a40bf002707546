package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An access is what a rule grants beneath its path.
type access uint8

const (
	// accessList lists folders: the folders on the way to a denied path,
	// so that `ls ~` works while ~/.ssh's files stay unread (their names
	// can be listed).
	accessList access = iota + 1
	// accessRead reads files, lists folders and executes programs.
	accessRead
	// accessWrite also writes, creates, removes and renames.
	accessWrite
)

// A rule grants access beneath a path (the path itself when it is a file).
type rule struct {
	Path   string `json:"p"`
	Access access `json:"a"`
}

// devices are the files every confined process may write, whatever the
// policy: writing to them changes nothing on disk.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// SystemKeep are the files under /etc that programs read to start and to
// find users, hosts and certificates. They stay readable when a
// forbidden_paths entry covers /etc (the default list has it, for the
// file tools), since otherwise the dynamic loader, git, TLS and `whoami`
// fail in every command.
var SystemKeep = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
	"/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf",
	"/etc/services", "/etc/protocols",
	"/etc/localtime", "/etc/timezone", "/etc/locale.alias", "/etc/locale.conf", "/etc/default/locale",
	"/etc/ssl", "/etc/ca-certificates", "/etc/ca-certificates.conf", "/etc/pki",
	"/etc/alternatives", "/etc/mime.types", "/etc/magic", "/etc/terminfo", "/etc/inputrc",
	"/etc/os-release", "/etc/debian_version", "/etc/lsb-release",
	"/etc/gitconfig", "/etc/environment",
}

// rules returns the Landlock-style rules of p: what may be read (all but
// Deny, with Keep inside it), written (Writable and the devices) — the
// read-only paths are not rules, a mount makes them so.
func (p Policy) rules() []rule {
	deny := existingReal(p.Deny)
	// A folder inside another denied one adds nothing.
	deny = slices.DeleteFunc(deny, func(d string) bool {
		return slices.ContainsFunc(deny, func(o string) bool { return o != d && within(d, o) })
	})
	w := walker{deny: deny, keep: existingReal(p.Keep)}
	w.visit("/")
	for _, d := range devices {
		w.add(d, accessWrite)
	}
	for _, wr := range existingReal(p.Writable) {
		w.add(wr, accessWrite)
	}
	return w.out
}

// A walker collects the read rules of a deny list.
type walker struct {
	deny, keep []string
	out        []rule
}

func (w *walker) add(p string, a access) { w.out = append(w.out, rule{Path: p, Access: a}) }

// visit grants reading p, or as much of it as the deny list leaves:
// nothing of a denied path but the keep entries in it; all of a path that
// holds no denied one; and for a folder that holds one, listing it and
// visiting its entries. Links are not followed (their targets are granted
// or not on their own), so a link to a denied folder reads nothing.
func (w *walker) visit(p string) {
	if slices.ContainsFunc(w.deny, func(d string) bool { return within(p, d) }) {
		for _, k := range w.keep {
			if within(k, p) {
				w.add(k, accessRead)
			}
		}
		return
	}
	if !slices.ContainsFunc(w.deny, func(d string) bool { return within(d, p) }) {
		w.add(p, accessRead)
		return
	}
	w.add(p, accessList)
	entries, err := os.ReadDir(p)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		w.visit(filepath.Join(p, e.Name()))
	}
}

// existingReal returns the real paths of the entries that exist, cleaned
// and without duplicates, in their order.
func existingReal(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Clean(p))
		if err != nil {
			continue
		}
		if !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// readOnlyMounts returns the read-only paths that exist (real) and lie
// inside a writable folder or hold one: only there does a read-only bind
// change what a process may write, since Landlock refuses writes
// everywhere else. Each bind is a mount per process started, and the home
// folder's control paths (~/.bashrc, ~/.gitconfig, …) are many and are
// outside the workspace but where it is the home folder.
func (p Policy) readOnlyMounts() []string {
	writable := existingReal(p.Writable)
	return slices.DeleteFunc(existingReal(p.ReadOnly), func(r string) bool {
		return !slices.ContainsFunc(writable, func(w string) bool { return within(r, w) || within(w, r) })
	})
}

// within reports whether p is dir or lies beneath it (both clean and
// absolute).
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+"/")
}

// hidden returns the denied paths that lie inside a writable folder, where
// Landlock cannot refuse them (the folder's grant covers them): a mount
// namespace hides each under an empty mount. A denied folder holding a Keep
// entry is hidden entry by entry, all but the way to what is kept (its
// folders are hidden where they hold nothing kept).
func (p Policy) hidden() []string {
	writable := existingReal(p.Writable)
	keep := existingReal(p.Keep)
	var out []string
	var hide func(d string)
	hide = func(d string) {
		if slices.Contains(keep, d) {
			return
		}
		if !slices.ContainsFunc(keep, func(k string) bool { return within(k, d) }) {
			out = append(out, d)
			return
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Type()&os.ModeSymlink == 0 {
				hide(filepath.Join(d, e.Name()))
			}
		}
	}
	for _, d := range existingReal(p.Deny) {
		if slices.ContainsFunc(writable, func(w string) bool { return within(d, w) && d != w }) {
			hide(d)
		}
	}
	return out
}
