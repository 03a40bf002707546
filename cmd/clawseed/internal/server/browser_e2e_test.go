package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clawseed/clawseed/providers/providertest"
)

// browserE2ETimeout bounds the end-to-end browser test, the browser's
// start included.
const browserE2ETimeout = 60 * time.Second

// TestBrowserEndToEnd drives the web page in headless Chromium against the
// real server (the page's own tests use a fake API): create a session in
// the trusted workspace, send a message, approve the file_write the model
// asks for, and see the Markdown answer rendered and the file written.
func TestBrowserEndToEnd(t *testing.T) {
	t.Parallel()
	browser := e2eBrowserPath(t)
	h := newHarness(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "file_write", Args: `{"path":"out.txt","content":"hello from the browser\n"}`}}},
		{Text: "## Done\n\nWrote **out.txt**."},
	}, "")
	ctx := e2eBrowser(t, browser)

	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\npage text:\n%s", what, err, e2ePageText(ctx))
		}
	}
	// waitFor waits for the page's state, never for a fixed delay.
	waitFor := func(what, cond string) {
		t.Helper()
		step("waiting for "+what, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(30*time.Second)))
	}

	step("opening the page", chromedp.Navigate(h.ts.URL+"/"), chromedp.WaitVisible(chromedp.ID("new-workspace")))
	step("creating a session",
		chromedp.SendKeys(chromedp.ID("new-workspace"), h.ws),
		chromedp.Click(chromedp.ID("create")))
	waitFor("the session", `!document.getElementById("session").hidden && location.hash.startsWith("#session=")`)
	step("sending a message",
		chromedp.WaitVisible(chromedp.ID("composer-text")),
		chromedp.SendKeys(chromedp.ID("composer-text"), "write out.txt"),
		chromedp.Click(chromedp.ID("send")))
	// The diff's file header is no removed or added line.
	waitFor("the diff", `[...document.querySelectorAll("#transcript .approval .diff span")].map((e) => e.className + ":" + e.textContent.trim()).join("|") ===
		"hunk:--- a/out.txt|hunk:+++ b/out.txt|hunk:@@ -0,0 +1 @@|add:+hello from the browser|:"`)
	step("approving the write",
		chromedp.WaitVisible(chromedp.CSS(`#transcript section.approval button[data-decision="allow"]`)),
		chromedp.Click(chromedp.CSS(`#transcript section.approval button[data-decision="allow"]`)))
	waitFor("the rendered answer", `[...document.querySelectorAll("#transcript h2")].some((e) => e.textContent === "Done") &&
		[...document.querySelectorAll("#transcript strong")].some((e) => e.textContent === "out.txt")`)

	data, err := os.ReadFile(filepath.Join(h.ws, "out.txt"))
	if err != nil || string(data) != "hello from the browser\n" {
		t.Errorf("out.txt: %q, %v", data, err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot: not a PNG (%d bytes)", len(png))
	}
	path := filepath.Join(t.TempDir(), "e2e.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// e2eBrowserPath returns the browser to drive, or skips the test (as the
// page's tests in package web do).
func e2eBrowserPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CLAWSEED_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no browser on PATH (install chromium, or set CLAWSEED_CHROMIUM)")
	return ""
}

// e2eBrowser starts a headless Chromium and returns its tab's context,
// which ends with the test or after browserE2ETimeout. Uncaught
// exceptions and console errors of the page fail the test.
func e2eBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(1200, 900),
		chromedp.DisableGPU,
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("lang", "en-US"),
	)
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root (containers, CI).
		opts = append(opts, chromedp.NoSandbox)
	}
	deadline, cancelDeadline := context.WithTimeout(context.Background(), browserE2ETimeout)
	t.Cleanup(cancelDeadline)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(deadline, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1200, 900)); err != nil {
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
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("%s (%s:%s)", m, m.URL, strconv.Itoa(int(m.Line)+1)))
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

func e2ePageText(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return s
}
