package tui

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/vt"
)

// harness runs a UI headless: its output drawn on a screen emulator of a
// fixed size, keys sent as messages.
type harness struct {
	t   *testing.T
	ui  *UI
	emu *screen
}

// screen is an emulator safe for the program's writes and the test's
// reads.
type screen struct {
	mu  sync.Mutex
	emu *vt.Emulator
}

// Write draws p, turning each newline into CR LF as a terminal's line
// discipline does (ONLCR): bubbletea counts on it.
func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Without a terminal for input bubbletea leaves the terminal's modes
	// alone and writes "\n" for a new line, counting on the line
	// discipline's ONLCR; the screen does what that would.
	if _, err := s.emu.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fixedNow is the clock of every test: the spinner shows no real time.
func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// rawLog keeps what the program wrote, as bytes.
type rawLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (r *rawLog) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.Write(p)
}

func (r *rawLog) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String()
}

// newHarness runs a UI on a screen of width × height; o.Out, when set, is
// also given everything written.
func newHarness(t *testing.T, width, height int, o Options) *harness {
	t.Helper()
	emu := &screen{emu: vt.NewEmulator(width, height)}
	var out io.Writer = emu
	if o.Out != nil {
		out = io.MultiWriter(emu, o.Out)
	}
	o.Out, o.Width, o.Height = out, width, height
	if o.Now == nil {
		o.Now = fixedNow
	}
	h := &harness{t: t, emu: emu}
	h.ui = New(o)
	h.ui.Start()
	t.Cleanup(func() { h.ui.Stop() })
	return h
}

// screen is the scrollback followed by the screen, trailing spaces and
// blank lines trimmed.
func (h *harness) screen() string {
	h.emu.mu.Lock()
	var lines []string
	if sb := h.emu.emu.Scrollback(); sb != nil {
		for i := 0; i < sb.Len(); i++ {
			lines = append(lines, sb.Line(i).String())
		}
	}
	lines = append(lines, strings.Split(h.emu.emu.String(), "\n")...)
	h.emu.mu.Unlock()
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// waitFor waits until the screen holds text.
func (h *harness) waitFor(text string) string {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := h.screen()
		if strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("screen never showed %q; it shows:\n%s", text, s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// result waits for a read's result.
func (h *harness) result(ch <-chan readResult) readResult {
	h.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		h.t.Fatalf("no input read; the screen shows:\n%s", h.screen())
		return readResult{}
	}
}

func (h *harness) key(k tea.KeyPressMsg) { h.ui.prog.Send(k) }

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.key(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) press(code rune, mod tea.KeyMod) { h.key(tea.KeyPressMsg{Code: code, Mod: mod}) }

// read runs ReadLine in the background.
func (h *harness) read() <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		text, err := h.ui.ReadLine(context.Background(), "you> ")
		ch <- readResult{text: text, err: err}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !h.ui.reading.Load() {
		if time.Now().After(deadline) {
			h.t.Fatal("the UI never asked for input")
		}
		time.Sleep(time.Millisecond)
	}
	return ch
}

var update = flag.Bool("update", false, "rewrite the golden screens in testdata")

// golden compares the screen, once it has settled, with
// testdata/NAME.golden (-update writes it). waited is the screen a waitFor
// returned: the settled one follows it.
func (h *harness) golden(name, waited string) {
	h.t.Helper()
	_ = waited
	screen := h.settle()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(screen), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != screen {
		h.t.Errorf("screen %s differs (-update rewrites it)\n--- want\n%s\n--- got\n%s", name, want, screen)
	}
}

// settle waits until the screen has not changed for 150 ms — several
// frames at bubbletea's 60 per second, even on a loaded machine — then
// returns it.
func (h *harness) settle() string {
	h.t.Helper()
	last, same := h.screen(), 0
	for range 500 {
		time.Sleep(10 * time.Millisecond)
		s := h.screen()
		if s != last {
			last, same = s, 0
			continue
		}
		if same++; same >= 15 {
			break
		}
	}
	return last
}
