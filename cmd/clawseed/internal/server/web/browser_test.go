package web

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

var update = flag.Bool("update", false, "write the screenshots to testdata/")

// testTimeout bounds each browser test, the browser's start included.
const testTimeout = 30 * time.Second

// chromiumPath returns the browser the tests drive, or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CLAWSEED_CHROMIUM"); p != "" {
		return p
	}
	names := []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "headless-shell"}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skipf("no browser for the page tests: none of %s is on PATH (install Debian's chromium: apt-get install chromium, or set CLAWSEED_CHROMIUM)", strings.Join(names, ", "))
	return ""
}

// newBrowser starts a headless Chromium with a window of the given size and
// returns the context of its tab, which ends with the test or after
// testTimeout. Every uncaught exception and every console error the page
// logs (network errors aside: the tests provoke some) fails the test.
func newBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	path := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(width, height),
		chromedp.DisableGPU,
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("lang", "en-US"),
	)
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root (containers, CI).
		opts = append(opts, chromedp.NoSandbox)
	}
	deadline, cancelDeadline := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancelDeadline)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(deadline, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}

	var mu sync.Mutex
	var problems []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.IsException() || (m.Type == chromedp.ConsoleError && m.Source != "network") {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("page console: %s", p)
		}
	})
	return ctx
}

// do runs the steps, failing the test with what was being done and the
// page's text.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v\npage text:\n%s", what, err, pageText(ctx))
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) into a T.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.80q: %v\npage text:\n%s", expr, err, pageText(ctx))
	}
	return v
}

// waitFor waits until the JavaScript condition holds: the page's state,
// never a fixed delay.
func waitFor(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	do(t, ctx, "waiting for "+what, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(15*time.Second)))
}

func pageText(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	if len(s) > 3000 {
		s = s[:3000] + "…"
	}
	return s
}

// screenshot takes a PNG of the viewport, checks it is one, and keeps it
// under t.TempDir() (testdata/NAME.png with -update).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: not a PNG (%d bytes)", name, len(png))
	}
	dir := t.TempDir()
	if *update {
		dir = "testdata"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// pressEnter presses Enter on the focused element as a keyboard does: one
// keyDown that carries the text, so a keydown handler's preventDefault
// keeps the newline out (chromedp's KeyEvent sends the text in a separate
// char event, which no page can refuse), then keyUp.
func pressEnter() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "Enter", Code: "Enter",
			WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13, Text: "\r", UnmodifiedText: "\r"}
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "Enter", Code: "Enter",
			WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, up)
		return err
	})
}
