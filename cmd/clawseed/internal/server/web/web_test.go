package web

import (
	"bufio"
	"io/fs"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// history is a finished session's transcript as GET /v1/sessions/{id}
// returns it: a prompt, a shell call with its result, the Markdown answer.
func history() []map[string]any {
	args := map[string]any{"command": "go vet ./..."}
	return []map[string]any{
		{"role": "user", "text": "check the code <b>now</b>"},
		{"role": "assistant", "text": "Vetting first.",
			"tool_calls": []any{map[string]any{"id": "old_1", "name": "shell", "args": args}}},
		{"role": "user", "text": "", "tool_results": []any{
			map[string]any{"id": "old_1", "content": "vet: <script>window.__xss=4</script>", "is_error": true}}},
		{"role": "assistant", "text": fakeAnswer},
	}
}

// TestPageTurn drives the page through a whole turn in Chromium: the token,
// a new session, the workspace filter, a skill on and off, a message whose
// stream breaks after the approval request (the page resumes it with
// events?after=N), the approval by keyboard, the answer rendered as
// Markdown with the reply's HTML shown as text, usage and cost; then a
// second turn cancelled while it waits for approval.
func TestPageTurn(t *testing.T) {
	f, srv := newFakeAPI(t, Files())
	f.drops = map[int]dropKind{1: dropEnd, 2: dropAbort}
	f.seed("sess-0", "/srv/other", "Older session", history())
	ctx := newBrowser(t, 1280, 860)

	do(t, ctx, "opening the page", chromedp.Navigate(srv.URL))
	waitFor(t, ctx, "the refusal without a token", `document.getElementById("error").textContent.includes("Not authorised")`)

	do(t, ctx, "saving the token",
		chromedp.SendKeys(chromedp.ID("token"), "s3cret"),
		chromedp.Click(chromedp.CSS("#token-form button")))
	waitFor(t, ctx, "the session list", `document.getElementById("error").hidden && document.querySelectorAll("#session-list li").length === 1`)

	do(t, ctx, "creating a session",
		chromedp.SendKeys(chromedp.ID("new-workspace"), "/work/project"),
		chromedp.Click(chromedp.ID("create")))
	waitFor(t, ctx, "the new session", `document.getElementById("session").dataset.state === "idle" &&
		document.getElementById("session-meta").textContent.includes("/work/project") &&
		document.querySelectorAll("#session-list li").length === 2`)

	do(t, ctx, "filtering by workspace", chromedp.SendKeys(chromedp.ID("filter"), "/work/project"))
	waitFor(t, ctx, "the filtered list", `document.querySelectorAll("#session-list li").length === 1 &&
		document.querySelector("#session-list .session-item").getAttribute("aria-current") === "true"`)

	do(t, ctx, "activating a skill",
		chromedp.SendKeys(chromedp.ID("skill-name"), "review"),
		chromedp.Click(chromedp.CSS("#skill-form button")))
	waitFor(t, ctx, "the skill chip", `document.querySelector("#active-skills .chip span")?.textContent === "review"`)
	do(t, ctx, "deactivating it", chromedp.Click(chromedp.CSS(`#active-skills .chip button`)))
	waitFor(t, ctx, "no skill", `document.querySelector("#active-skills .chip") === null`)
	do(t, ctx, "activating it again",
		chromedp.SendKeys(chromedp.ID("skill-name"), "review"),
		pressEnter())
	waitFor(t, ctx, "the skill chip again", `document.querySelector("#active-skills .chip span")?.textContent === "review"`)

	// Enter sends; the approval's Approve button takes the focus, and
	// Enter approves.
	do(t, ctx, "sending a message",
		chromedp.SendKeys(chromedp.ID("composer-text"), "run the tests"),
		pressEnter())
	waitFor(t, ctx, "the approval request, focused", `document.activeElement?.matches('.approval[data-call-id="call_1"] button[data-decision="allow"]')`)
	do(t, ctx, "approving by keyboard", pressEnter())
	waitFor(t, ctx, "the end of the turn", `document.getElementById("session").dataset.state === "idle" &&
		document.querySelector(".turn .note.result") !== null &&
		document.getElementById("usage").textContent.includes("$0.0123") &&
		document.querySelector("#session-list .title")?.textContent === "run the tests"`)

	type turnView struct {
		XSS, Scripts, Images, Streaming, Tools, Approvals int
		H2, Strong, TableCode, GoCode, Links, ToolResult  string
		ApprovalState, Status, ListTitle, Text, Usage     string
		Todos                                             string
	}
	v := eval[turnView](t, ctx, `(() => {
		const t = document.getElementById("transcript");
		const answer = [...t.querySelectorAll(".turn .msg.assistant")].pop();
		return {
			XSS: window.__xss === undefined ? 0 : 1,
			Scripts: document.querySelectorAll("#transcript script").length,
			Images: document.querySelectorAll("#transcript img").length,
			Streaming: t.querySelectorAll(".streaming").length,
			Tools: t.querySelectorAll('details.tool[data-call-id="call_1"]').length,
			Approvals: t.querySelectorAll(".approval").length,
			H2: answer.querySelector("h2")?.textContent ?? "",
			Strong: answer.querySelector("strong")?.textContent ?? "",
			TableCode: answer.querySelector("table td code")?.textContent ?? "",
			GoCode: answer.querySelector("pre code.language-go")?.textContent ?? "",
			Links: [...answer.querySelectorAll("a")].map((a) => a.href).join(" "),
			ToolResult: t.querySelector('details.tool[data-call-id="call_1"] pre.result')?.textContent ?? "",
			ApprovalState: t.querySelector(".approval .approval-state").textContent,
			Status: document.getElementById("turn-status").textContent,
			ListTitle: document.querySelector("#session-list .title").textContent,
			Text: answer.textContent,
			Usage: document.getElementById("usage").textContent,
			Todos: [...t.querySelectorAll(".turn .todos :is(h3, li)")].map((e) => e.textContent).join(" | "),
		};
	})()`)
	want := turnView{
		Tools: 1, Approvals: 1,
		H2: "Result", Strong: "tests", TableCode: "app", GoCode: `fmt.Println("<b>hi</b>")`,
		Links: "https://example.com/docs", ToolResult: "ok  \texample.com/app\t0.012s",
		ApprovalState: "Approved.", Status: "Turn finished.", ListTitle: "run the tests",
		Todos: "Todo list · 1/2 done | ☒ Run the tests | ◐ Report <b>them</b>",
	}
	got := v
	got.Text, got.Usage = "", ""
	if got != want {
		t.Errorf("after the turn the page shows\n%+v\nwant\n%+v", got, want)
	}
	for _, s := range []string{`<script>window.__xss=1</script>`, `<img src=x onerror="window.__xss=2">`, `[a link](javascript:window.__xss=3)`} {
		if !strings.Contains(v.Text, s) {
			t.Errorf("the answer does not show %q as text; it reads:\n%s", s, v.Text)
		}
	}
	for _, s := range []string{"1,200", "345", "$0.0123"} {
		if !strings.Contains(v.Usage, s) {
			t.Errorf("usage %q lacks %q", v.Usage, s)
		}
	}
	afters, decisions, skillOps, _ := f.snapshot()
	if want := f.seqOf("sess-2", "approval_request", "call_1"); !slices.Equal(afters, []int{want}) {
		t.Errorf("after the stream ended mid-turn the page asked for events?after=%v, want [%d]", afters, want)
	}
	if !slices.Equal(decisions, []string{"call_1 allow"}) {
		t.Errorf("approvals posted = %q, want [call_1 allow]", decisions)
	}
	if !slices.Equal(skillOps, []string{"+review", "-review", "+review"}) {
		t.Errorf("skill requests = %q", skillOps)
	}
	screenshot(t, ctx, "turn-desktop")

	// A second turn, whose connection breaks after the approval request
	// (the browser may drop what it had not read), cancelled while it
	// waits.
	firstEnd := f.seqOf("sess-2", "result", "")
	do(t, ctx, "sending another message",
		chromedp.SendKeys(chromedp.ID("composer-text"), "and again"),
		chromedp.Click(chromedp.ID("send")))
	waitFor(t, ctx, "the second approval request", `document.querySelector('.approval[data-call-id="call_2"]') !== null`)
	do(t, ctx, "cancelling", chromedp.Click(chromedp.ID("cancel")))
	waitFor(t, ctx, "the cancelled turn", `document.getElementById("session").dataset.state === "idle" &&
		document.querySelector(".turn .note.result.error")?.textContent.includes("cancelled by the user") &&
		document.querySelector('.approval[data-call-id="call_2"] button[data-decision="allow"]').disabled`)
	afters, _, _, cancels := f.snapshot()
	if cancels != 1 {
		t.Errorf("cancel requests = %d, want 1", cancels)
	}
	if len(afters) < 2 || afters[1] < firstEnd || afters[1] > f.seqOf("sess-2", "approval_request", "call_2") {
		t.Errorf("after the broken connection the page asked for events?after=%v, want a second resume in [%d, the approval's seq]", afters, firstEnd)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.approval[data-call-id="call_2"]').length`); n != 1 {
		t.Errorf("the second approval is shown %d times", n)
	}
}

// TestPageHistoryNarrow opens a stored session on a 360-pixel screen: the
// list and the chat take turns, nothing overflows sideways, the history is
// rendered (Markdown, tool calls with results, HTML as text), and a reload
// comes back to the same session with the token kept for the tab.
func TestPageHistoryNarrow(t *testing.T) {
	f, srv := newFakeAPI(t, Files())
	f.seed("sess-0", "/srv/project", "Check the code", history())
	ctx := newBrowser(t, 360, 740)

	do(t, ctx, "opening the page", chromedp.Navigate(srv.URL))
	do(t, ctx, "entering the token", chromedp.SendKeys(chromedp.ID("token"), "s3cret"), pressEnter())
	waitFor(t, ctx, "the session list", `document.querySelectorAll("#session-list li").length === 1`)
	noOverflow := `document.documentElement.scrollWidth <= window.innerWidth`
	if !eval[bool](t, ctx, noOverflow) {
		t.Errorf("the session list overflows 360 pixels: scrollWidth %d", eval[int](t, ctx, `document.documentElement.scrollWidth`))
	}
	screenshot(t, ctx, "list-narrow")

	do(t, ctx, "opening the session", chromedp.Click(chromedp.CSS("#session-list .session-item")))
	checkHistory := func(when string) {
		t.Helper()
		waitFor(t, ctx, "the history "+when, `document.getElementById("session").dataset.state === "idle" &&
			document.querySelector("#transcript h2")?.textContent === "Result"`)
		type view struct {
			SidebarShown, MainShown, Overflow bool
			Prompt, ToolResult, Answer        string
			Scripts, Images, XSS              int
		}
		v := eval[view](t, ctx, `(() => ({
			SidebarShown: document.getElementById("sidebar").offsetParent !== null,
			MainShown: document.getElementById("main").offsetParent !== null,
			Overflow: !(`+noOverflow+`),
			Prompt: document.querySelector("#transcript .msg.user").textContent,
			ToolResult: document.querySelector('details.tool[data-call-id="old_1"] pre.result').textContent,
			Answer: [...document.querySelectorAll("#transcript .msg.assistant")].pop().textContent,
			Scripts: document.querySelectorAll("#transcript script").length,
			Images: document.querySelectorAll("#transcript img").length,
			XSS: window.__xss === undefined ? 0 : 1,
		}))()`)
		if v.SidebarShown || !v.MainShown || v.Overflow {
			t.Errorf("%s at 360 px: sidebar shown %v, chat shown %v, overflow %v", when, v.SidebarShown, v.MainShown, v.Overflow)
		}
		if v.Prompt != "check the code <b>now</b>" || v.ToolResult != "vet: <script>window.__xss=4</script>" {
			t.Errorf("%s: prompt %q, tool result %q: want them as typed", when, v.Prompt, v.ToolResult)
		}
		if v.Scripts+v.Images+v.XSS != 0 || !strings.Contains(v.Answer, `onerror="window.__xss=2"`) {
			t.Errorf("%s: %d scripts, %d images, xss %d; answer %q", when, v.Scripts, v.Images, v.XSS, v.Answer)
		}
	}
	checkHistory("opened from the list")
	screenshot(t, ctx, "history-narrow")

	do(t, ctx, "reloading", chromedp.Reload())
	checkHistory("after a reload")

	do(t, ctx, "going back to the list", chromedp.Click(chromedp.ID("back")))
	waitFor(t, ctx, "the list again", `document.getElementById("sidebar").offsetParent !== null`)
}

// TestPageFollowsRunningTurn opens a session whose turn another client
// started and left waiting for approval: the page shows the stored history
// up to that turn's prompt, follows the turn from its stored events
// (events?after=0), and the approval it sends finishes the turn.
func TestPageFollowsRunningTurn(t *testing.T) {
	f, srv := newFakeAPI(t, Files())
	f.seed("sess-0", "/srv/project", "Check the code", history())
	startTurn(t, srv.URL, "sess-0", f.token, "second question")
	ctx := newBrowser(t, 1024, 768)

	do(t, ctx, "opening the page", chromedp.Navigate(srv.URL+"/#session=sess-0"))
	do(t, ctx, "entering the token", chromedp.SendKeys(chromedp.ID("token"), "s3cret"), pressEnter())
	waitFor(t, ctx, "the running turn's approval", `document.getElementById("session").dataset.state === "running" &&
		document.querySelector('.approval[data-call-id="call_1"] button[data-decision="always"]') !== null`)
	do(t, ctx, "always allowing", chromedp.Click(chromedp.CSS(`.approval[data-call-id="call_1"] button[data-decision="always"]`)))
	waitFor(t, ctx, "the end of the turn", `document.getElementById("session").dataset.state === "idle" &&
		document.querySelector(".turn .note.result") !== null`)
	type view struct {
		Prompts, Approvals, Answers, Tools int
		Scope, State                       string
	}
	got := eval[view](t, ctx, `(() => ({
		Prompts: document.querySelectorAll("#transcript .msg.user").length,
		Approvals: document.querySelectorAll("#transcript .approval").length,
		Answers: [...document.querySelectorAll("#transcript h2")].filter((h) => h.textContent === "Result").length,
		Tools: document.querySelectorAll('#transcript details.tool[data-call-id="call_1"]').length,
		Scope: document.querySelector(".approval .approval-scope code").textContent,
		State: document.querySelector(".approval .approval-state").textContent,
	}))()`)
	want := view{Prompts: 2, Approvals: 1, Answers: 2, Tools: 1, Scope: "go test ./...", State: "Approved, and always for this pattern."}
	if got != want {
		t.Errorf("the followed turn shows %+v, want %+v", got, want)
	}
	afters, decisions, _, _ := f.snapshot()
	if len(afters) == 0 || afters[0] != 0 || !slices.Equal(decisions, []string{"call_1 always"}) {
		t.Errorf("events requests after=%v, approvals %q; want after=0 first and [call_1 always]", afters, decisions)
	}
}

// startTurn starts a turn from another client and leaves once it waits
// for approval.
func startTurn(t *testing.T, base, id, token, text string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", base+"/v1/sessions/"+id+"/messages", strings.NewReader(`{"text":"`+text+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"approval_request"`) {
			return
		}
	}
	t.Fatalf("the turn's stream ended before its approval request: %v", sc.Err())
}

// TestNoUnsafeSinks keeps the page's one rule mechanical: no script writes
// HTML text into the document, evaluates strings or sets event-handler
// attributes, and nothing is loaded from elsewhere.
func TestNoUnsafeSinks(t *testing.T) {
	sinks := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\(\s*["']on|srcdoc|createContextualFragment|DOMParser|setTimeout\(\s*["'\x60]`)
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//|@import|url\(\s*["']?(https?:)?//`)
	err := fs.WalkDir(Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Files(), path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(path, ".js") && sinks.MatchString(line) {
				t.Errorf("%s:%d: an HTML or code sink: %s", path, i+1, strings.TrimSpace(line))
			}
			if external.MatchString(line) {
				t.Errorf("%s:%d: loads from another origin: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "app.js", "style.css", "markdown.js"} {
		if _, err := fs.Stat(Files(), name); err != nil {
			t.Errorf("the page lacks %s: %v", name, err)
		}
	}
}
