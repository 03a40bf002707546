package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

// markdownPage serves the page's files and an empty page to import the
// renderer from (index.html would start the app).
func markdownPage(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(Files()))
	mux.HandleFunc("GET /blank", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><meta charset="utf-8"><title>blank</title>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/blank"
}

// TestMarkdown renders Markdown in Chromium with the page's renderer and
// compares the DOM it builds, serialised.
func TestMarkdown(t *testing.T) {
	const a = ` rel="noopener noreferrer nofollow" target="_blank"`
	tests := []struct{ name, src, want string }{
		{"heading", "# Title #", "<h1>Title</h1>"},
		{"heading levels", "### three\n###### six", "<h3>three</h3><h6>six</h6>"},
		{"not a heading", "#hashtag", "<p>#hashtag</p>"},
		{"setext", "Title\n===\nSub\n---", "<h1>Title</h1><h2>Sub</h2>"},
		{"inlines", "a *b* **c** ~~d~~ `e` _f_", "<p>a <em>b</em> <strong>c</strong> <del>d</del> <code>e</code> <em>f</em></p>"},
		{"strong em", "***x***", "<p><strong><em>x</em></strong></p>"},
		{"intraword underscore", "snake_case_name", "<p>snake_case_name</p>"},
		{"unclosed", "2 * 3 and **open", "<p>2 * 3 and **open</p>"},
		{"escapes", `\*not em\* 1 < 2 & 3`, "<p>*not em* 1 &lt; 2 &amp; 3</p>"},
		{"entities stay text", "&lt;b&gt; &amp;", "<p>&amp;lt;b&amp;gt; &amp;amp;</p>"},
		{"line break", "one\ntwo", "<p>one<br>two</p>"},
		{"paragraphs", "one\n\ntwo", "<p>one</p><p>two</p>"},
		{"script is text", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"img onerror is text", `<img src=x onerror="alert(1)">`, `<p>&lt;img src=x onerror="alert(1)"&gt;</p>`},
		{"html in heading", "## <i>x</i>", "<h2>&lt;i&gt;x&lt;/i&gt;</h2>"},
		{"html in code span", "`<b>`", "<p><code>&lt;b&gt;</code></p>"},
		{"code span backticks", "`` a`b ``", "<p><code>a`b</code></p>"},
		{"link", "[docs](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2"` + a + `>docs</a></p>`},
		{"link with title", `[x](http://example.com "T")`, `<p><a href="http://example.com/"` + a + `>x</a></p>`},
		{"link label inlines", "[**b**](https://e.com)", `<p><a href="https://e.com/"` + a + `><strong>b</strong></a></p>`},
		{"javascript link", "[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>"},
		{"javascript mixed case", "[x](JaVaScRiPt:alert(1))", "<p>[x](JaVaScRiPt:alert(1))</p>"},
		{"javascript entity", "[x](javascript&#58;alert(1))", "<p>[x](javascript&amp;#58;alert(1))</p>"},
		{"javascript tab", "[x](java\tscript:alert(1))", "<p>[x](java\tscript:alert(1))</p>"},
		{"data link", "[x](data:text/html,<b>)", "<p>[x](data:text/html,&lt;b&gt;)</p>"},
		{"relative link", "[x](/etc/passwd)", "<p>[x](/etc/passwd)</p>"},
		{"quote in url", `[x](https://e.com/"onmouseover="alert(1))`, `<p><a href="https://e.com/%22onmouseover=%22alert(1)"` + a + `>x</a></p>`},
		{"image is a link", "![alt](https://e.com/i.png)", `<p><a href="https://e.com/i.png"` + a + `>alt</a></p>`},
		{"autolink", "<https://example.com>", `<p><a href="https://example.com/"` + a + `>https://example.com</a></p>`},
		{"bare url", "see https://example.com/x.", `<p>see <a href="https://example.com/x"` + a + `>https://example.com/x</a>.</p>`},
		{"bare url parens", "(https://e.com/a_(b))", `<p>(<a href="https://e.com/a_(b)"` + a + `>https://e.com/a_(b)</a>)</p>`},
		{"fence", "```js\nconst a = '<b>';\n```", `<pre><code class="language-js">const a = '&lt;b&gt;';</code></pre>`},
		{"fence lang sanitised", "```\"onclick=x\nhi\n```", `<pre><code class="language-onclickx">hi</code></pre>`},
		{"fence unclosed", "```\npartial <b>", "<pre><code>partial &lt;b&gt;</code></pre>"},
		{"fence tilde", "~~~\n```\n~~~", "<pre><code>```</code></pre>"},
		{"list", "- a\n- b\n  - c", "<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul>"},
		{"loose list", "- a\n\n- b", "<ul><li><p>a</p></li><li><p>b</p></li></ul>"},
		{"ordered", "3. x\n4. y", `<ol start="3"><li>x</li><li>y</li></ol>`},
		{"tasks", "- [x] done\n- [ ] todo", `<ul><li class="task"><span class="box">☑ </span>done</li><li class="task"><span class="box">☐ </span>todo</li></ul>`},
		{"table", "| a | b |\n|:--|--:|\n| `x\\|y` | 2 |",
			`<div class="table-wrap"><table><thead><tr><th class="align-left">a</th><th class="align-right">b</th></tr></thead>` +
				`<tbody><tr><td class="align-left"><code>x|y</code></td><td class="align-right">2</td></tr></tbody></table></div>`},
		{"table html", "| <b> |\n|---|\n| <script>x</script> |",
			`<div class="table-wrap"><table><thead><tr><th>&lt;b&gt;</th></tr></thead><tbody><tr><td>&lt;script&gt;x&lt;/script&gt;</td></tr></tbody></table></div>`},
		{"quote", "> quote\n> **b**", "<blockquote><p>quote<br><strong>b</strong></p></blockquote>"},
		{"rule", "a\n\n***\n\nb", "<p>a</p><hr><p>b</p>"},
		{"empty", "", ""},
	}
	ctx := newBrowser(t, 800, 600)
	do(t, ctx, "opening a blank page", chromedp.Navigate(markdownPage(t)))
	srcs := make([]string, len(tests))
	for i, tt := range tests {
		srcs[i] = tt.src
	}
	js, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	got := eval[[]string](t, ctx, `(async (srcs) => {
		const m = await import("./markdown.js");
		return srcs.map((src) => {
			const d = document.createElement("div");
			m.renderInto(d, src);
			return d.innerHTML;
		});
	})(`+string(js)+`)`)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got[i] != tt.want {
				t.Errorf("render(%q)\n got %s\nwant %s", tt.src, got[i], tt.want)
			}
		})
	}
}

// TestMarkdownFuzz is the renderer's fuzz target, run where the renderer
// runs: thousands of inputs made from Markdown's and HTML's dangerous
// pieces (a fixed seed, so a failure repeats) must build only the elements
// and attributes the renderer may make, with links only to http(s); and
// inputs made to be slow must render in well under two seconds.
func TestMarkdownFuzz(t *testing.T) {
	ctx := newBrowser(t, 800, 600)
	do(t, ctx, "opening a blank page", chromedp.Navigate(markdownPage(t)))
	type result struct {
		Inputs     int
		Violations []string
		Slow       []string
		Times      map[string]int // milliseconds
	}
	r := eval[result](t, ctx, `(async () => {
		const m = await import("./markdown.js");
		const pieces = ["<", ">", "&", '"', "'", "=", "`+"`"+`", "`+"```"+`", "~~~", "*", "**", "_", "__", "~~",
			"[", "]", "(", ")", "![", "#", "## ", "|", "|---|", ":--", "-", "- ", "1. ", "> ", ":", "\n", "\n\n",
			" ", "    ", "\t", "a", "word", "\\", "javascript:", "JaVaScRiPt:", "java\nscript:", "vbscript:",
			"data:text/html,", "https://x.y/", "http://a", "//evil.com", "<script>", "</script>",
			"<img src=x onerror=alert(1)>", "<a href=javascript:alert(1)>", "onerror=", "&lt;", "&#58;",
			"[ ] ", "[x] ", "---", "===", "<https://e.com>", "<javascript:alert(1)>", "\u202e", "\u0000"];
		const tags = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "del", "code", "pre",
			"ul", "ol", "li", "span", "blockquote", "div", "table", "thead", "tbody", "tr", "th", "td", "a", "hr", "br"]);
		const attrOK = (tag, a) =>
			(tag === "a" && a.name === "href" && /^https?:\/\/[^\s]/.test(a.value) && m.safeURL(a.value) === a.value) ||
			(tag === "a" && a.name === "rel" && a.value === "noopener noreferrer nofollow") ||
			(tag === "a" && a.name === "target" && a.value === "_blank") ||
			(tag === "ol" && a.name === "start" && /^\d+$/.test(a.value)) ||
			(a.name === "class" && /^(language-[\w+#.-]+|align-(left|center|right)|task|box|table-wrap)$/.test(a.value));
		let seed = 20261103;
		const rnd = (n) => {
			seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
			return (seed >>> 8) % n;
		};
		const violations = [];
		const d = document.createElement("div");
		const check = (src) => {
			m.renderInto(d, src);
			for (const e of d.querySelectorAll("*")) {
				const tag = e.localName;
				if (!tags.has(tag) || e.namespaceURI !== "http://www.w3.org/1999/xhtml") {
					violations.push("element " + tag + " from " + JSON.stringify(src));
				}
				for (const a of e.attributes) {
					if (!attrOK(tag, a)) {
						violations.push("attribute " + tag + "[" + a.name + "=" + JSON.stringify(a.value) + "] from " + JSON.stringify(src));
					}
				}
			}
		};
		const N = 4000;
		for (let n = 0; n < N && violations.length < 10; n++) {
			let src = "";
			for (let k = rnd(48); k > 0; k--) {
				src += pieces[rnd(pieces.length)];
			}
			check(src);
		}
		const slow = [];
		const times = {};
		const big = {
			stars: "*a ".repeat(40000),
			underscores: "_a".repeat(40000),
			backticks: "`+"`"+`x ".repeat(40000),
			brackets: "[".repeat(40000) + "]".repeat(40000),
			links: "[a](".repeat(20000),
			linksClosed: "[a](b".repeat(20000),
			linksAngle: "[a](<".repeat(20000),
			linksTitle: '[a](b "'.repeat(20000),
			linksLong: ("[a](" + "b".repeat(1000)).repeat(100),
			quotes: "> ".repeat(20000) + "x",
			nestedLists: Array.from({ length: 300 }, (_, i) => " ".repeat(i * 2) + "- x").join("\n"),
			headingSpaces: "# " + " ".repeat(100000) + "x",
			fenceInfo: "`+"```"+`" + "a".repeat(100000) + "`+"`"+`",
			trailingSpaces: "x" + " ".repeat(100000) + "y\nz",
			pipes: "|".repeat(50000) + "\n|---|\n" + "|".repeat(50000),
			urls: "https://e.com/".repeat(10000),
			autolinks: "<http://".repeat(20000),
		};
		// Each is 40 to 160 kB, a long reply: linear work takes tens of
		// milliseconds, quadratic work many seconds; the bound leaves room
		// for a loaded machine.
		for (const [name, src] of Object.entries(big)) {
			const t0 = performance.now();
			check(src);
			const ms = performance.now() - t0;
			times[name] = Math.round(ms);
			if (ms > 2000) {
				slow.push(name + ": " + Math.round(ms) + " ms");
			}
		}
		return { Inputs: N, Violations: violations, Slow: slow, Times: times };
	})()`)
	for _, v := range r.Violations {
		t.Errorf("unsafe output: %s", v)
	}
	for _, s := range r.Slow {
		t.Errorf("slow input: %s", s)
	}
	t.Logf("%d random inputs checked; long inputs took (ms) %v", r.Inputs, r.Times)
}
