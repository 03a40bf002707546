// Package sandbox confines the processes clawseed starts on the model's or a
// repository's behalf — shell commands, `shell:` skills, dynamic context,
// cron shell jobs, git, ripgrep, the PDF child, MCP servers — with the
// operating system's own mechanisms, so that a bypass of any check above it
// (the allowlist parser, an approval given too quickly) can still only do
// what the sandbox allows.
//
// On macOS it is enforced by Seatbelt (sandbox-exec with a profile
// generated from the policy, seatbelt.go). On Linux the policy is
// enforced by Landlock (files, TCP; ABI 1 and
// later, network rules from ABI 4, signal and abstract-socket scoping from
// ABI 6) and, where the process may create them, a private mount namespace
// (control paths bound read-only) and network namespace:
//
//   - reads: everything but [Policy.Deny] (forbidden_paths, clawseed's own
//     secrets), except the [Policy.Keep] entries within them. Landlock only
//     grants, so a denied path is left out by granting its siblings, and
//     every folder on the way to it may be listed but its files not read;
//   - writes: only [Policy.Writable] (the workspace, a per-session temp
//     folder, the user's [sandbox].writable), with the [Policy.ReadOnly]
//     paths inside them (control paths) read-only where a mount namespace
//     can be made;
//   - network: none unless [Policy.Network].
//
// A [Sandbox] applies policies two ways, both forking the confined process
// from a thread that took the policy's namespaces and Landlock domain, so
// that a command costs about what it costs unconfined. Where the process
// may make a mount namespace itself (root, or CAP_SYS_ADMIN), that thread
// is one of its own. Otherwise the thread is in a fork server: the helper
// — clawseed itself, re-executed with [HelperArg] in new user, mount and
// network namespaces, where it is root so that it may mount, then once
// more in a nested user namespace where it is the user again, without
// capabilities (helper_linux.go) — started once per policy, which forks
// each process with CLONE_PARENT so that it is this process's child.
// [Sandbox.Wrap] runs the helper per process instead, for code that starts
// the process itself. The folders above each read-only path are mount
// points too, so that renaming one cannot carry the path away.
package sandbox

import (
	"fmt"
	"strings"
)

// HelperArg is the first argument that makes clawseed run as the
// sandbox helper ([HelperMain]); main checks for it before anything else.
const HelperArg = "__sandbox-exec"

// A Policy is what a confined process may do. Paths are absolute; the
// [Sandbox] resolves their links.
type Policy struct {
	// Deny are paths no confined process may read: forbidden_paths,
	// clawseed's configuration, sessions and memory.
	Deny []string
	// Keep are paths readable even inside a Deny entry: the system files
	// programs need to start (/etc/ld.so.cache, /etc/passwd, …) and the
	// user's skills inside CLAWSEED_HOME.
	Keep []string
	// Writable are the folders (or files) a confined process may write.
	Writable []string
	// ReadOnly are paths inside Writable that stay read-only: the control
	// paths (.git/hooks, .git/config, .clawseed/, .claude/, .mcp.json, …).
	// Only the ones that exist when a process starts can be protected.
	ReadOnly []string
	// Holes are folders inside ReadOnly paths that stay writable (they
	// must be in Writable too): a subagent's git worktree under the
	// read-only .clawseed/ (.clawseed/worktrees/NAME). The read-only paths
	// inside a hole (its own .git file, .clawseed/, …) stay read-only.
	// Only the ones that exist when a process starts are opened.
	Holes []string
	// Network allows network access; without it TCP connections and binds
	// are refused (Landlock), and where a network namespace can be made the
	// process has no network at all (no UDP, no loopback).
	Network bool
}

// A Status says how processes are confined on this machine.
type Status struct {
	// Active is true when processes are confined (Landlock works).
	Active bool
	// ABI is the Landlock ABI version (0: none).
	ABI int
	// NetworkRules is true when network access can be refused: Landlock
	// TCP rules (ABI 4) or a network namespace.
	NetworkRules bool
	// NetNamespace is true when a confined process without network gets a
	// network namespace of its own (no UDP, no loopback either).
	NetNamespace bool
	// ReadOnlyPaths is true when control paths can be made read-only
	// (a private mount namespace).
	ReadOnlyPaths bool
	// Helper is true when the fork server that starts processes is made
	// by the re-executed helper in an unprivileged user namespace, rather
	// than started from a thread of clawseed's that took the namespaces
	// itself (root or CAP_SYS_ADMIN).
	Helper bool
	// Seatbelt is true on macOS, where sandbox-exec applies a generated
	// profile (seatbelt.go) instead of Landlock.
	Seatbelt bool
	// Reason says why Active, NetworkRules or ReadOnlyPaths is false.
	Reason string
}

// String is the start-up line's text after "sandbox: ".
func (s Status) String() string {
	if !s.Active {
		if s.Reason == "" {
			return "not available; commands are not sandboxed"
		}
		return "not available (" + s.Reason + "); commands are not sandboxed"
	}
	if s.Seatbelt {
		return "seatbelt (sandbox-exec), network rules on, control paths read-only"
	}
	parts := []string{fmt.Sprintf("landlock v%d", s.ABI)}
	switch {
	case s.NetNamespace:
		parts = append(parts, "network rules on (own network namespace)")
	case s.NetworkRules:
		parts = append(parts, "network rules on (TCP only)")
	default:
		parts = append(parts, "no network rules (Landlock ABI < 4)")
	}
	if s.ReadOnlyPaths {
		parts = append(parts, "control paths read-only")
	} else {
		parts = append(parts, "control paths writable (no mount namespace)")
	}
	return strings.Join(parts, ", ")
}
