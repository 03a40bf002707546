// Package scan is the static check of a skill's files (issue 27): remote
// code piped into an interpreter, encoded payloads that are executed,
// archives and binaries, instructions to turn safety off, hidden Unicode,
// suspicious links, grants of command execution, dynamic context that
// reaches the network and secret-looking strings. Every finding names a
// rule of the one data file (rules.toml), a severity, and file:line.
//
// The scanner never runs anything and never follows a link out of the
// folder it scans.
package scan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// A Severity orders findings; `skills add` refuses High and Critical
// without --yes.
type Severity string

// Severities, lowest first.
const (
	Low      Severity = "low"
	Medium   Severity = "medium"
	High     Severity = "high"
	Critical Severity = "critical"
)

// A Finding is one rule matched at one place of a skill.
type Finding struct {
	// Rule is the id of the rule in rules.toml, such as "pipe-to-shell".
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File is slash-separated and relative to the scanned skill folder.
	File string `json:"file"`
	// Line is 1-based; 0 when the finding is about the whole file.
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Dir scans one skill folder and returns its findings sorted by file, line
// and rule. An error (a *fs.PathError naming the folder) means the folder
// could not be read at all; unreadable single files become findings.
func Dir(ctx context.Context, dir string) ([]Finding, error) {
	rules, err := builtinRules()
	if err != nil {
		return nil, err
	}
	return scanDir(ctx, dir, rules, limits{file: confine.MaxScanFile, skill: confine.MaxScanSkill, files: confine.MaxScanFiles})
}

// limits are the caps of one scan (confine's, smaller in tests).
type limits struct {
	file, skill int64
	files       int
}

// A scanner collects the findings of one folder.
type scanner struct {
	rules    []*Rule
	root     string // absolute, as given
	real     string // root with its links resolved: the confine root
	findings []Finding
	// skillMD and manifest are the skill's definition files as read, for
	// the "dynamic", "shell" and "skill" rules.
	skillMD, manifest []byte
}

func (s *scanner) add(r *Rule, file string, line int, detail string) {
	msg := r.Message
	if detail != "" {
		msg += ": " + detail
	}
	s.findings = append(s.findings, Finding{Rule: r.ID, Severity: r.Severity, File: file, Line: line, Message: msg})
}

// addCheck adds a finding of the rule whose check is name.
func (s *scanner) addCheck(name, file string, line int, detail string) {
	if r := ruleByCheck(s.rules, name); r != nil {
		s.add(r, file, line, detail)
	}
}

func scanDir(ctx context.Context, dir string, rules []*Rule, lim limits) ([]Finding, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &fs.PathError{Op: "scan", Path: dir, Err: err}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, &fs.PathError{Op: "scan", Path: abs, Err: unwrapPath(err)}
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "scan", Path: abs, Err: errors.New("not a folder")}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, &fs.PathError{Op: "scan", Path: abs, Err: unwrapPath(err)}
	}
	s := &scanner{rules: rules, root: abs, real: real}
	if err := s.walk(ctx, lim); err != nil {
		return nil, err
	}
	s.checkSkill()
	return sortFindings(s.findings), nil
}

// walk reads every regular file under the root, never following a link,
// skipping .git, within the caps.
func (s *scanner) walk(ctx context.Context, lim limits) error {
	var total int64
	files := 0
	return filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, rerr := filepath.Rel(s.root, path)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if path == s.root {
				return &fs.PathError{Op: "scan", Path: s.root, Err: unwrapPath(err)}
			}
			s.addCheck("unreadable-file", rel, 0, confine.Why(err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if path == s.root {
			return nil
		}
		switch t := d.Type(); {
		case d.IsDir():
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		case t&fs.ModeSymlink != 0:
			if target, out := s.escapes(path); out {
				s.addCheck("symlink-escape", rel, 0, "→ "+target)
			}
			return nil
		case !t.IsRegular():
			s.addCheck("special-file", rel, 0, "")
			return nil
		}
		files++
		info, ierr := d.Info()
		if ierr != nil {
			s.addCheck("unreadable-file", rel, 0, confine.Why(ierr))
			return nil
		}
		if info.Size() > lim.file {
			s.addCheck("file-too-large", rel, 0, fmt.Sprintf("%d bytes, the cap is %d", info.Size(), lim.file))
			return nil
		}
		total += info.Size()
		if files > lim.files || total > lim.skill {
			s.addCheck("skill-too-large", rel, 0, fmt.Sprintf("caps: %d files, %d bytes", lim.files, lim.skill))
			return fs.SkipAll
		}
		data, rerr2 := confine.Read(path, confine.Options{Roots: []string{s.real}, Max: lim.file})
		if rerr2 != nil {
			s.refused(rel, rerr2)
			return nil
		}
		s.scanFile(rel, data)
		return nil
	})
}

// unwrapPath returns the reason of a *fs.PathError, without its path (the
// caller's error names the folder).
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// refused turns a file confine would not read into a finding.
func (s *scanner) refused(rel string, err error) {
	if r, ok := errors.AsType[*confine.Refusal](err); ok {
		switch r.Reason {
		case confine.NotRegular:
			s.addCheck("special-file", rel, 0, "")
			return
		case confine.TooLarge:
			s.addCheck("file-too-large", rel, 0, r.Why())
			return
		case confine.Outside:
			s.addCheck("symlink-escape", rel, 0, r.Why())
			return
		}
	}
	s.addCheck("unreadable-file", rel, 0, confine.Why(err))
}

// escapes reports whether the link at path leads out of the root, read as
// written (a relative target from the link's folder) and, when it
// resolves, as the system resolves it.
func (s *scanner) escapes(path string) (string, bool) {
	target, err := os.Readlink(path)
	if err != nil {
		return "", false
	}
	lexical := target
	if !filepath.IsAbs(lexical) {
		lexical = filepath.Join(filepath.Dir(path), lexical)
	}
	if !within(s.root, lexical) && !within(s.real, lexical) {
		return target, true
	}
	if resolved, err := filepath.EvalSymlinks(path); err == nil && !within(s.real, resolved) && !within(s.root, resolved) {
		return target, true
	}
	return target, false
}

// within reports whether path is root or under it (both clean, absolute).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// scanFile runs the "file" checks on data and, when it is text, the text
// rules; the skill's own SKILL.md and manifest.toml are kept for the
// skill-wide rules.
func (s *scanner) scanFile(rel string, data []byte) {
	s.fileChecks(rel, data)
	if !isText(data) {
		return
	}
	switch rel {
	case "SKILL.md":
		s.skillMD = data
	case "manifest.toml":
		s.manifest = data
	}
	t := newText(data, s.rules)
	for _, r := range s.rules {
		if r.applies(applyText) {
			for _, h := range t.matches(r) {
				s.add(r, rel, h.line, "")
			}
		}
	}
}

// sortFindings sorts by file, line, rule and drops repeats of one rule on
// one line.
func sortFindings(out []Finding) []Finding {
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Rule, b.Rule))
	})
	return slices.CompactFunc(out, func(a, b Finding) bool {
		return a.File == b.File && a.Line == b.Line && a.Rule == b.Rule
	})
}
