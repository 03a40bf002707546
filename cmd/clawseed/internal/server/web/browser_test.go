package web

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/clawseed/clawseed/internal/browsertest"
)

var update = flag.Bool("update", false, "write the screenshots to testdata/")

// testTimeout bounds each browser test, the browser's start included.
const testTimeout = 30 * time.Second

// newBrowser starts a headless Chromium with a window of the given size
// (internal/browsertest); the page's network errors do not fail the test:
// the tests provoke some.
func newBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	return browsertest.New(t, browsertest.Options{Width: width, Height: height, Timeout: testTimeout})
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

func pageText(ctx context.Context) string { return browsertest.PageText(ctx) }

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
