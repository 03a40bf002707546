package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The language of the pty command's scripts (see script_pty_test.go).

// ptyWait is how long wait, waitre, output and expectexit wait by default,
// and the bound of the harness's own waits.
const ptyWait = 10 * time.Second

// ptyStep is one action of a pty script.
type ptyStep struct {
	line int    // 1-based, for messages
	op   string // the action's name
	// text: send, paste (a file name if file), wait, output, notscreen;
	// the file of screen.
	text string
	file bool
	keys []string       // key
	re   *regexp.Regexp // waitre
	// timeout: wait, waitre, output, expectexit; the duration of sleep.
	timeout    time.Duration
	cols, rows int // resize
	code       int // expectexit
}

// ptyKeys are the bytes a terminal (xterm, in its default modes) sends for
// each key a script can press. Cursor keys switch to ESC O in application
// cursor key mode (ptyTerm.keySeq).
//
// A legacy terminal sends Shift+Enter as a plain CR, indistinguishable from
// Enter; terminals that tell it apart use the kitty keyboard protocol /
// fixterms form CSI 13;2u, which shift-enter sends. Bubble Tea v2's decoder
// (charmbracelet/ultraviolet) reads both CSI 13;2u and xterm's
// modifyOtherKeys form CSI 27;2;13~ as shift+enter whether or not the
// program asked for keyboard enhancements; send "\x1b[27;2;13~" types the
// latter. Alt+Enter is ESC CR in every terminal (alt = ESC prefix).
var ptyKeys = func() map[string]string {
	keys := map[string]string{
		"enter":       "\r",
		"esc":         "\x1b",
		"tab":         "\t",
		"shift-tab":   "\x1b[Z",
		"backspace":   "\x7f",
		"space":       " ",
		"delete":      "\x1b[3~",
		"up":          "\x1b[A",
		"down":        "\x1b[B",
		"right":       "\x1b[C",
		"left":        "\x1b[D",
		"home":        "\x1b[H",
		"end":         "\x1b[F",
		"pgup":        "\x1b[5~",
		"pgdown":      "\x1b[6~",
		"shift-enter": "\x1b[13;2u",
		"alt-enter":   "\x1b\r",
	}
	for c := 'a'; c <= 'z'; c++ {
		keys["ctrl-"+string(c)] = string(c - 'a' + 1)
	}
	return keys
}()

// ptyOptions are the arguments of the pty command.
type ptyOptions struct {
	cols, rows int
	env        []string
	script     string
	prog       string
	args       []string
}

func parsePtyArgs(args []string) (ptyOptions, error) {
	o := ptyOptions{cols: 100, rows: 30}
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--"; i += 2 {
		if i+1 >= len(args) {
			return o, fmt.Errorf("%s needs a value", args[i])
		}
		v := args[i+1]
		switch args[i] {
		case "-cols", "-rows":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return o, fmt.Errorf("%s %q: want a number of cells from 1 to 1000", args[i], v)
			}
			if args[i] == "-cols" {
				o.cols = n
			} else {
				o.rows = n
			}
		case "-env":
			if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
				return o, fmt.Errorf("-env %q: want K=V", v)
			}
			o.env = append(o.env, v)
		default:
			return o, fmt.Errorf("unknown flag %s", args[i])
		}
	}
	if i+2 >= len(args) || args[i] == "--" || args[i+1] != "--" {
		return o, errors.New("want SCRIPTFILE -- PROGRAM")
	}
	o.script, o.prog, o.args = args[i], args[i+2], args[i+3:]
	return o, nil
}

// parsePtyScript parses a pty script: an action a line, # comments, blank
// lines ignored.
func parsePtyScript(src string) ([]ptyStep, error) {
	var steps []ptyStep
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parsePtyLine(line)
		if err != nil {
			return nil, fmt.Errorf("%d: %w", i+1, err)
		}
		s.line = i + 1
		steps = append(steps, s)
	}
	return steps, nil
}

func parsePtyLine(line string) (ptyStep, error) {
	op, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimLeft(rest, " \t")
	s := ptyStep{op: op, timeout: ptyWait}
	var err error
	switch op {
	case "send", "notscreen":
		s.text, err = ptyText(rest)
	case "paste":
		if file, ok := strings.CutPrefix(rest, "@"); ok {
			s.text, s.file = file, true
			if file == "" {
				err = errors.New("paste @FILE: no file name")
			}
		} else {
			s.text, err = ptyText(rest)
		}
	case "key":
		s.keys = strings.Fields(rest)
		if len(s.keys) == 0 {
			err = errors.New("key: no key names")
		}
		for _, k := range s.keys {
			if _, ok := ptyKeys[k]; !ok {
				err = fmt.Errorf("key: unknown key %q", k)
				break
			}
		}
	case "wait", "output", "waitre":
		if s.timeout, rest, err = ptyTimeout(rest); err != nil {
			break
		}
		if s.text, err = ptyText(rest); err != nil {
			break
		}
		if op == "waitre" {
			s.re, err = regexp.Compile("(?m)" + s.text)
		}
	case "resize":
		f := strings.Fields(rest)
		if len(f) != 2 {
			err = errors.New("resize: want COLS ROWS")
			break
		}
		if s.cols, err = ptyCells(f[0]); err == nil {
			s.rows, err = ptyCells(f[1])
		}
	case "screen":
		if s.text = rest; rest == "" || strings.ContainsAny(rest, " \t") {
			err = errors.New("screen: want one FILE")
		}
	case "sleep":
		if s.timeout, err = time.ParseDuration(rest); err == nil && s.timeout < 0 {
			err = errors.New("sleep: negative duration")
		}
	case "expectexit":
		if s.timeout, rest, err = ptyTimeout(rest); err != nil || rest == "" {
			break
		}
		if s.code, err = strconv.Atoi(rest); err != nil || s.code < 0 || s.code > 255 {
			err = fmt.Errorf("expectexit: exit status %q is not a number from 0 to 255", rest)
		}
	default:
		err = fmt.Errorf("unknown action %q", op)
	}
	return s, err
}

// ptyText is a TEXT argument: a Go quoted string, or the text as written.
func ptyText(arg string) (string, error) {
	if arg == "" {
		return "", errors.New("no text")
	}
	if arg[0] != '"' && arg[0] != '`' {
		return arg, nil
	}
	s, err := strconv.Unquote(arg)
	if err != nil {
		return "", fmt.Errorf("text %s: not one Go quoted string", arg)
	}
	if s == "" {
		return "", errors.New("empty text")
	}
	return s, nil
}

// ptyTimeout takes a leading "-t DURATION" off arg.
func ptyTimeout(arg string) (time.Duration, string, error) {
	rest, ok := strings.CutPrefix(arg, "-t ")
	if !ok {
		return ptyWait, arg, nil
	}
	d, rest, _ := strings.Cut(strings.TrimLeft(rest, " \t"), " ")
	t, err := time.ParseDuration(d)
	if err != nil || t <= 0 {
		return 0, "", fmt.Errorf("-t %q: want a positive Go duration", d)
	}
	return t, strings.TrimLeft(rest, " \t"), nil
}

func ptyCells(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1000 {
		return 0, fmt.Errorf("%q: want a number of cells from 1 to 1000", s)
	}
	return n, nil
}
