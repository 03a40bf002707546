// Package browsertest starts the headless Chromium the web page's tests
// drive (with chromedp): the page's own tests against a fake of the API,
// and the server's end-to-end test against the real one. Only tests import
// it.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// names are the browsers looked for on PATH, in order.
func names() []string {
	return []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "headless-shell"}
}

// Path returns the browser to drive ($CLAWSEED_CHROMIUM, else the first of
// the usual names on PATH), or skips the test saying what to install.
func Path(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CLAWSEED_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range names() {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skipf("no browser for the page tests: none of %s is on PATH (install Debian's chromium: apt-get install chromium, or set CLAWSEED_CHROMIUM)", strings.Join(names(), ", "))
	return ""
}

// Options shape a browser.
type Options struct {
	// Width and Height are the window's size.
	Width, Height int
	// Timeout bounds the test's use of the browser, its start included.
	Timeout time.Duration
	// NetworkErrors makes the page's network errors fail the test too
	// (the page's own tests provoke some; against the real server there
	// should be none).
	NetworkErrors bool
}

// New starts a headless Chromium and returns the context of its tab, which
// ends with the test or after o.Timeout. Every uncaught exception and
// every console error the page logs fails the test.
func New(t testing.TB, o Options) context.Context {
	t.Helper()
	path := Path(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.DisableGPU,
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("lang", "en-US"),
	)
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root (containers, CI).
		opts = append(opts, chromedp.NoSandbox)
	}
	deadline, cancelDeadline := context.WithTimeout(context.Background(), o.Timeout)
	t.Cleanup(cancelDeadline)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(deadline, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(o.Width), int64(o.Height))); err != nil {
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
			if m.IsException() || (m.Type == chromedp.ConsoleError && (o.NetworkErrors || m.Source != "network")) {
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

// PageText is the page's visible text (cut to 3,000 bytes), for failure
// messages.
func PageText(ctx context.Context) string {
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
