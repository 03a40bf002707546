package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePtyScript(t *testing.T) {
	tests := []struct {
		name, src string
		want      []ptyStep // re is compared by its source, in text
		err       string
	}{
		{name: "empty", src: "", want: nil},
		{name: "comments and blank lines", src: "# a comment\n\n   \n  # indented\r\n", want: nil},
		{name: "send as written", src: "send  hello  there  ", want: []ptyStep{{line: 1, op: "send", text: "hello  there", timeout: ptyWait}}},
		{name: "send quoted", src: `send "a\tb\r"`, want: []ptyStep{{line: 1, op: "send", text: "a\tb\r", timeout: ptyWait}}},
		{name: "send backquoted", src: "send `\\n`", want: []ptyStep{{line: 1, op: "send", text: `\n`, timeout: ptyWait}}},
		{name: "send CRLF line", src: "send x\r\n", want: []ptyStep{{line: 1, op: "send", text: "x", timeout: ptyWait}}},
		{name: "send with a hash", src: "send #1", want: []ptyStep{{line: 1, op: "send", text: "#1", timeout: ptyWait}}},
		{name: "send nothing", src: "send", err: "1: no text"},
		{name: "send empty quoted", src: `send ""`, err: "1: empty text"},
		{name: "send bad quote", src: `send "abc`, err: "not one Go quoted string"},
		{name: "send two quoted", src: `send "a" "b"`, err: "not one Go quoted string"},
		{name: "keys", src: "key up\tdown  enter shift-enter alt-enter ctrl-r", want: []ptyStep{{line: 1, op: "key", keys: []string{"up", "down", "enter", "shift-enter", "alt-enter", "ctrl-r"}, timeout: ptyWait}}},
		{name: "unknown key", src: "key enter hyper-x", err: `1: key: unknown key "hyper-x"`},
		{name: "no key", src: "key", err: "1: key: no key names"},
		{name: "paste text", src: `paste "a\nb"`, want: []ptyStep{{line: 1, op: "paste", text: "a\nb", timeout: ptyWait}}},
		{name: "paste file", src: "paste @block.txt", want: []ptyStep{{line: 1, op: "paste", text: "block.txt", file: true, timeout: ptyWait}}},
		{name: "paste quoted at", src: `paste "@x"`, want: []ptyStep{{line: 1, op: "paste", text: "@x", timeout: ptyWait}}},
		{name: "paste no file", src: "paste @", err: "1: paste @FILE: no file name"},
		{name: "wait", src: "wait you>", want: []ptyStep{{line: 1, op: "wait", text: "you>", timeout: ptyWait}}},
		{name: "wait timeout", src: "wait -t 250ms  two words", want: []ptyStep{{line: 1, op: "wait", text: "two words", timeout: 250 * time.Millisecond}}},
		{name: "wait bad timeout", src: "wait -t soon x", err: `1: -t "soon": want a positive Go duration`},
		{name: "wait zero timeout", src: "wait -t 0s x", err: "want a positive Go duration"},
		{name: "wait no text", src: "wait -t 1s", err: "1: no text"},
		{name: "output", src: "output -t 2s done", want: []ptyStep{{line: 1, op: "output", text: "done", timeout: 2 * time.Second}}},
		{name: "notscreen", src: "notscreen error", want: []ptyStep{{line: 1, op: "notscreen", text: "error", timeout: ptyWait}}},
		{name: "waitre", src: `waitre ^you> \w+$`, want: []ptyStep{{line: 1, op: "waitre", text: `^you> \w+$`, timeout: ptyWait}}},
		{name: "waitre bad", src: "waitre (", err: "missing closing )"},
		{name: "resize", src: "resize 60 20", want: []ptyStep{{line: 1, op: "resize", cols: 60, rows: 20, timeout: ptyWait}}},
		{name: "resize one number", src: "resize 60", err: "1: resize: want COLS ROWS"},
		{name: "resize zero", src: "resize 0 20", err: `"0": want a number of cells`},
		{name: "resize huge", src: "resize 80 100000", err: `"100000": want a number of cells`},
		{name: "screen", src: "screen s1.txt", want: []ptyStep{{line: 1, op: "screen", text: "s1.txt", timeout: ptyWait}}},
		{name: "screen two files", src: "screen a b", err: "1: screen: want one FILE"},
		{name: "screen none", src: "screen", err: "1: screen: want one FILE"},
		{name: "sleep", src: "sleep 50ms", want: []ptyStep{{line: 1, op: "sleep", timeout: 50 * time.Millisecond}}},
		{name: "sleep bad", src: "sleep a while", err: "1: time: invalid duration"},
		{name: "sleep negative", src: "sleep -1s", err: "1: sleep: negative duration"},
		{name: "expectexit", src: "expectexit", want: []ptyStep{{line: 1, op: "expectexit", timeout: ptyWait}}},
		{name: "expectexit code", src: "expectexit -t 3s 2", want: []ptyStep{{line: 1, op: "expectexit", code: 2, timeout: 3 * time.Second}}},
		{name: "expectexit bad code", src: "expectexit 256", err: `1: expectexit: exit status "256" is not a number from 0 to 255`},
		{name: "unknown", src: "wait x\n\ntype hello", err: `3: unknown action "type"`},
		{
			name: "lines count",
			src:  "# start\nsend hi\n\nkey enter\nexpectexit 0\n",
			want: []ptyStep{
				{line: 2, op: "send", text: "hi", timeout: ptyWait},
				{line: 4, op: "key", keys: []string{"enter"}, timeout: ptyWait},
				{line: 5, op: "expectexit", timeout: ptyWait},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePtyScript(tt.src)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i].re != nil {
					if got[i].re.String() != "(?m)"+got[i].text {
						t.Errorf("step %d: regexp %q, want (?m)%s", i, got[i].re, got[i].text)
					}
					got[i].re = nil
				}
			}
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(ptyStep{})); d != "" {
				t.Errorf("parsePtyScript (-want +got):\n%s", d)
			}
		})
	}
}

func TestParsePtyArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want ptyOptions
		err  string
	}{
		{name: "defaults", args: []string{"s.pty", "--", "clawseed", "chat"}, want: ptyOptions{cols: 100, rows: 30, script: "s.pty", prog: "clawseed", args: []string{"chat"}}},
		{name: "no args to the program", args: []string{"s.pty", "--", "clawseed"}, want: ptyOptions{cols: 100, rows: 30, script: "s.pty", prog: "clawseed", args: []string{}}},
		{
			name: "flags",
			args: []string{"-cols", "60", "-rows", "12", "-env", "A=1", "-env", "NO_COLOR=", "s.pty", "--", "clawseed", "chat", "-c"},
			want: ptyOptions{cols: 60, rows: 12, env: []string{"A=1", "NO_COLOR="}, script: "s.pty", prog: "clawseed", args: []string{"chat", "-c"}},
		},
		{name: "no --", args: []string{"s.pty", "clawseed"}, err: "want SCRIPTFILE -- PROGRAM"},
		{name: "no program", args: []string{"s.pty", "--"}, err: "want SCRIPTFILE -- PROGRAM"},
		{name: "no script", args: []string{"--", "clawseed"}, err: "want SCRIPTFILE -- PROGRAM"},
		{name: "nothing", args: nil, err: "want SCRIPTFILE -- PROGRAM"},
		{name: "flag without value", args: []string{"-cols"}, err: "-cols needs a value"},
		{name: "bad size", args: []string{"-rows", "0", "s", "--", "p"}, err: `-rows "0": want a number of cells`},
		{name: "bad env", args: []string{"-env", "=1", "s", "--", "p"}, err: `-env "=1": want K=V`},
		{name: "unknown flag", args: []string{"-size", "1", "s", "--", "p"}, err: "unknown flag -size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePtyArgs(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(ptyOptions{})); d != "" {
				t.Errorf("parsePtyArgs (-want +got):\n%s", d)
			}
		})
	}
}

func TestPtyKeys(t *testing.T) {
	tests := []struct{ key, want string }{
		{"enter", "\r"},
		{"ctrl-a", "\x01"},
		{"ctrl-c", "\x03"},
		{"ctrl-d", "\x04"},
		{"ctrl-j", "\n"},
		{"ctrl-r", "\x12"},
		{"ctrl-z", "\x1a"},
		{"esc", "\x1b"},
		{"shift-enter", "\x1b[13;2u"},
		{"alt-enter", "\x1b\r"},
		{"up", "\x1b[A"},
	}
	for _, tt := range tests {
		if got := ptyKeys[tt.key]; got != tt.want {
			t.Errorf("%s sends %q, want %q", tt.key, got, tt.want)
		}
	}
}

// FuzzParsePtyScript: any input parses or fails with a line number, and
// what parses is well formed.
func FuzzParsePtyScript(f *testing.F) {
	for _, s := range []string{
		"send hello\nkey enter\nwait -t 2s reply\nexpectexit 0\n",
		"# c\npaste @f.txt\npaste \"a\\nb\"\nwaitre ^x$\nresize 80 24\nscreen s.txt\nsleep 1ms\n",
		"key up down left right tab esc ctrl-c\noutput -t 1s x\nnotscreen y\n",
		"send \"\\x1b[27;2;13~\"\r\nexpectexit -t 1s 3",
		"wait -t\nresize a b\nsend `",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		steps, err := parsePtyScript(src)
		if err != nil {
			if steps != nil {
				t.Errorf("steps %v with error %v", steps, err)
			}
			return
		}
		last := 0
		for _, s := range steps {
			if s.line <= last {
				t.Errorf("line %d after line %d", s.line, last)
			}
			last = s.line
			switch s.op {
			case "send", "wait", "output", "notscreen", "waitre":
				if s.text == "" {
					t.Errorf("line %d: %s without text", s.line, s.op)
				}
			case "key":
				for _, k := range s.keys {
					if ptyKeys[k] == "" {
						t.Errorf("line %d: unknown key %q", s.line, k)
					}
				}
			case "resize":
				if s.cols < 1 || s.rows < 1 {
					t.Errorf("line %d: size %dx%d", s.line, s.cols, s.rows)
				}
			}
			if s.op == "waitre" && s.re == nil {
				t.Errorf("line %d: waitre without a regexp", s.line)
			}
			if s.timeout < 0 {
				t.Errorf("line %d: negative duration", s.line)
			}
		}
	})
}
