package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/permissions"
)

// rgSearch is the ripgrep [searchEngine]. It runs rg with --json in the
// searched directory, so include globs are relative to it as in the Go
// engine, with flags that make rg walk exactly like [contentSearch.goSearch]:
// hidden files searched, ignore files not read, symlinks not followed, .git
// and node_modules skipped, no encoding sniffing, files over 10 MiB skipped.
// Results come back in path order (--sort path); rg is stopped as soon as
// the collector has enough. If rg rejects a pattern that Go's regexp
// accepted (\Q...\E, a \n), the search falls back to the Go engine.
func (t *contentSearch) rgSearch(ctx context.Context, q *searchQuery, target string, isDir bool, emit func(fileMatches) bool) error {
	dir, arg := target, "."
	if !isDir {
		dir, arg = filepath.Dir(target), filepath.Base(target)
	}
	args := []string{
		"--json", "--no-config", "--hidden", "--no-ignore", "--sort", "path",
		"--max-filesize", "10M", "--encoding", "none",
	}
	if !q.caseSensitive {
		args = append(args, "--ignore-case")
	}
	if q.before > 0 {
		args = append(args, "--before-context", strconv.Itoa(q.before))
	}
	if q.after > 0 {
		args = append(args, "--after-context", strconv.Itoa(q.after))
	}
	if q.include != "" {
		args = append(args, "--glob", q.include)
	}
	args = append(args, "--glob", "!.git", "--glob", "!node_modules", "--regexp", q.pattern, "--", arg)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.rgPath, args...)
	cmd.Dir = dir
	cmd.Env = searchEnv(t.environ)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// A pipe of our own, not StdoutPipe: a Starter may start rg without
	// cmd.Start, which is what would close StdoutPipe's write end.
	stdout, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer stdout.Close()
	cmd.Stdout = pw
	wait, err := t.start.start(ctx, cmd, false)
	pw.Close()
	if err != nil {
		return fmt.Errorf("cannot run ripgrep: %w", err)
	}
	// rg knows nothing of forbidden paths: drop those files from its output.
	rules := t.sb.rules(true)
	filtered := func(f fileMatches) bool {
		if !rules.readable(f.path) || permissions.ReadHidden(ctx, f.path, realOrSelf(f.path)) {
			return true
		}
		return emit(f)
	}
	found, stopped, perr := parseRipgrep(stdout, dir, q, filtered)
	if stopped {
		cancel() // enough results: stop rg
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := wait()
	switch {
	case ctx.Err() != nil && !stopped:
		return ctx.Err()
	case perr != nil:
		return perr
	case stopped || werr == nil:
		return nil
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) && exit.ExitCode() == 1 {
		return nil // no match
	}
	msg := strings.TrimSpace(stderr.String())
	if !found && strings.Contains(msg, "regex") {
		return t.goSearch(ctx, q, target, isDir, emit)
	}
	if found {
		return nil // matches plus unreadable files: keep what was found
	}
	if msg == "" {
		msg = werr.Error()
	}
	return fmt.Errorf("ripgrep: %s", msg)
}

// rgMessage is the part of ripgrep's --json output that is used.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgData `json:"path"`
		Lines      rgData `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// rgData is ripgrep's arbitrary data: text when valid UTF-8, else base64.
type rgData struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (d rgData) String() string {
	if d.Text != nil {
		return *d.Text
	}
	if d.Bytes != nil {
		if b, err := base64.StdEncoding.DecodeString(*d.Bytes); err == nil {
			return string(b)
		}
	}
	return ""
}

// parseRipgrep reads rg --json output, emitting one fileMatches per file.
// It reports whether anything was emitted and whether emit asked to stop.
func parseRipgrep(r io.Reader, dir string, q *searchQuery, emit func(fileMatches) bool) (found, stopped bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var cur *fileMatches
	for {
		line, rerr := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m rgMessage
			if err := json.Unmarshal(line, &m); err != nil {
				return found, false, fmt.Errorf("unexpected ripgrep output: %v", err)
			}
			switch m.Type {
			case "begin":
				p := strings.TrimPrefix(m.Data.Path.String(), "./")
				cur = &fileMatches{path: filepath.Join(dir, filepath.FromSlash(p))}
			case "match", "context":
				if cur == nil {
					break
				}
				isMatch := m.Type == "match"
				if isMatch {
					cur.count++
				}
				if q.mode == modeContent && cur.count <= q.max+1 {
					text := strings.TrimSuffix(m.Data.Lines.String(), "\n")
					cur.lines = append(cur.lines, matchLine{n: m.Data.LineNumber, text: text, match: isMatch})
				}
			case "end":
				if cur != nil && cur.count > 0 {
					found = true
					trimAfterCap(cur, q)
					if !emit(*cur) {
						return found, true, nil
					}
				}
				cur = nil
			}
		}
		if rerr == io.EOF {
			return found, false, nil
		}
		if rerr != nil {
			return found, false, rerr
		}
	}
}

// trimAfterCap drops lines rg printed after the (max+1)-th match of a file,
// which the Go engine never produces, so both engines hand the collector the
// same lines.
func trimAfterCap(f *fileMatches, q *searchQuery) {
	if q.mode != modeContent || f.count <= q.max {
		return
	}
	n := 0
	for i, l := range f.lines {
		if l.match {
			n++
			if n == q.max+1 {
				f.lines = f.lines[:i+1]
				f.count = n
				return
			}
		}
	}
}

// searchEnv keeps only what ripgrep needs from the children's environment
// ([ScrubbedEnv]): PATH, HOME and the locale.
func searchEnv(environ []string) []string {
	var env []string
	for _, kv := range ScrubbedEnv(environ, nil) {
		name, _, _ := strings.Cut(kv, "=")
		if name == "PATH" || name == "HOME" || name == "LANG" || strings.HasPrefix(name, "LC_") {
			env = append(env, kv)
		}
	}
	return env
}
