package server

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clawseed/clawseed/internal/browsertest"
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
	browsertest.Path(t) // skips before the server starts when there is no browser
	h := newHarness(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "file_write", Args: `{"path":"out.txt","content":"hello from the browser\n"}`}}},
		{Text: "## Done\n\nWrote **out.txt**."},
	}, "")
	ctx := browsertest.New(t, browsertest.Options{Width: 1200, Height: 900, Timeout: browserE2ETimeout, NetworkErrors: true})

	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\npage text:\n%s", what, err, browsertest.PageText(ctx))
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
