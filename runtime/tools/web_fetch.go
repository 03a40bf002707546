package tools

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools/netguard"
	"github.com/clawseed/clawseed/runtime/tools/pdftext"
)

//go:embed web_fetch.md
var webFetchDescription string

// Defaults of the network tools when their options leave a value zero.
const (
	defaultNetTimeout  = 30 * time.Second
	defaultNetMaxBytes = 2 << 20
	// userAgent identifies clawseed's requests; some sites refuse Go's
	// default agent.
	userAgent = "Mozilla/5.0 (compatible; clawseed; +https://github.com/clawseed/clawseed)"
)

// WebFetchOptions configures [NewWebFetch].
type WebFetchOptions struct {
	// AllowedDomains and BlockedDomains are host patterns (see
	// [netguard.Guard]); an empty AllowedDomains allows no host.
	AllowedDomains, BlockedDomains []string
	// TrustedHosts are exact host names the user vouches for, which may
	// resolve to private addresses (never to cloud metadata).
	TrustedHosts []string
	// Resolve replaces the system resolver (tests).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// MaxBytes caps what is read of a response body (0 = 2 MiB).
	MaxBytes int64
	// Timeout bounds a whole fetch, redirects included (0 = 30 s).
	Timeout time.Duration
	// MaxOutputChars is the tools' output budget (0 = 30000).
	MaxOutputChars int
	// PDF extracts the text of fetched PDFs; nil extracts in this process.
	PDF PDFExtractor
}

type webFetchArgs struct {
	URL    string `json:"url" jsonschema:"The http(s) URL."`
	Offset int    `json:"offset,omitempty" jsonschema:"Where to go on from, as given by the note of a cut page."`
}

type webFetch struct {
	opts  WebFetchOptions
	guard netguard.Guard
}

// NewWebFetch returns web_fetch: GET a URL and return it as text.
func NewWebFetch(opts WebFetchOptions) Tool {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = defaultNetMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultNetTimeout
	}
	if opts.MaxOutputChars <= 0 {
		opts.MaxOutputChars = defaultMaxOutput
	}
	if opts.PDF == nil {
		opts.PDF = inProcessPDF
	}
	t := &webFetch{opts: opts, guard: netguard.Guard{
		Table:   "web_fetch",
		Allowed: opts.AllowedDomains,
		Blocked: opts.BlockedDomains,
		Trusted: opts.TrustedHosts,
		Resolve: opts.Resolve,
	}}
	tt := newTypedTool("web_fetch", permissions.ClassNetwork, webFetchDescription, t.run, minimum("offset", 0))
	tt.subject = func(a webFetchArgs) permissions.Subject { return permissions.Subject{URL: a.URL} }
	return &summaryTool[webFetchArgs]{
		typedTool: tt,
		summary:   func(a webFetchArgs) string { return "GET " + a.URL },
		timeout:   func(webFetchArgs) time.Duration { return opts.Timeout },
	}
}

func (t *webFetch) run(ctx context.Context, args webFetchArgs) providers.ToolResult {
	u, msg := parseToolURL(args.URL)
	if msg != "" {
		return errorResult("%s", msg)
	}
	if err := t.guard.CheckURL(u); err != nil {
		return errorResult("%s", err)
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return errorResult("Invalid URL %q: %v.", args.URL, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,application/pdf;q=0.8,*/*;q=0.5")
	resp, err := t.guard.Client().Do(req)
	if err != nil {
		return errorResult("%s", netguard.ErrorText(err, u.Redacted(), t.opts.Timeout))
	}
	defer resp.Body.Close()
	body, cut, err := readBodyCapped(resp.Body, t.opts.MaxBytes)
	if err != nil {
		return errorResult("%s", netguard.ErrorText(err, u.Redacted(), t.opts.Timeout))
	}
	page := fetchedPage{
		url:   resp.Request.URL,
		asked: u,
		resp:  resp,
		body:  body,
		cut:   cut,
	}
	return page.render(ctx, args.Offset, t.opts)
}

// parseToolURL parses a URL the model gave; msg says what is wrong with
// it.
func parseToolURL(s string) (u *url.URL, msg string) {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Sprintf("Invalid URL %q: %v.", s, err)
	}
	if u.Scheme == "" && u.Host == "" {
		return nil, fmt.Sprintf("Invalid URL %q: give an absolute URL starting with https:// or http://.", s)
	}
	return u, ""
}

// readBodyCapped reads at most limit bytes and reports whether there was more.
func readBodyCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// fetchedPage is a response on its way to becoming the tool result.
type fetchedPage struct {
	url, asked *url.URL
	resp       *http.Response
	body       []byte
	cut        bool
}

func (p *fetchedPage) render(ctx context.Context, offset int, opts WebFetchOptions) providers.ToolResult {
	ctype := p.resp.Header.Get("Content-Type")
	var head strings.Builder
	fmt.Fprintf(&head, "URL: %s\n", p.url.Redacted())
	if p.url.String() != p.asked.String() {
		fmt.Fprintf(&head, "(redirected from %s)\n", p.asked.Redacted())
	}
	fmt.Fprintf(&head, "Status: %s\n", p.resp.Status)
	if ctype != "" {
		fmt.Fprintf(&head, "Content-Type: %s\n", headerLine(ctype))
	}
	text, title, problem := p.convert(ctx, ctype, opts)
	if problem != "" {
		return errorResult("%s%s", head.String(), problem)
	}
	if title != "" {
		fmt.Fprintf(&head, "Title: %s\n", headerLine(title))
	}
	if p.cut {
		fmt.Fprintf(&head, "[Only the first %d bytes of the response were read ([web_fetch].max_bytes).]\n", opts.MaxBytes)
	}
	head.WriteString("\n")
	out, msg := windowText(head.String(), text, offset, opts.MaxOutputChars, "web_fetch")
	if msg != "" {
		return errorResult("%s", msg)
	}
	return providers.ToolResult{Content: out, IsError: p.resp.StatusCode >= 400}
}

// convert turns the body into text by its content type: HTML to Markdown,
// PDF to its text, text and JSON as they are. problem is set for content
// that cannot be shown.
func (p *fetchedPage) convert(ctx context.Context, ctype string, opts WebFetchOptions) (text, title, problem string) {
	kind := contentKind(ctype, p.body)
	switch kind {
	case kindHTML:
		text, title, err := htmlToMarkdown(p.body, p.url)
		if err != nil {
			return "", "", fmt.Sprintf("The HTML could not be converted: %v.", err)
		}
		return text, title, ""
	case kindPDF:
		if p.cut {
			return "", "", fmt.Sprintf("The PDF is larger than [web_fetch].max_bytes (%d bytes), and only a complete PDF can be read.", opts.MaxBytes)
		}
		doc, err := opts.PDF(ctx, p.body, "", 0)
		if err != nil {
			return "", "", fmt.Sprintf("The PDF could not be read: %v.", err)
		}
		return renderPDFPages(doc), "", ""
	case kindText:
		if isBinary(p.body) {
			return "", "", fmt.Sprintf("The response (%d bytes) looks binary although it is labelled as text; it cannot be shown.", len(p.body))
		}
		return strings.ToValidUTF8(string(p.body), "\uFFFD"), "", ""
	}
	return "", "", fmt.Sprintf("web_fetch cannot show %s content (%d bytes); it reads HTML, text, JSON, XML and PDF.", kind, len(p.body))
}

// Content kinds web_fetch handles; anything else is reported by its media
// type.
const (
	kindHTML = "html"
	kindPDF  = "pdf"
	kindText = "text"
)

// contentKind classifies a body by its declared media type, sniffing only
// when none (or a generic one) is declared.
func contentKind(ctype string, body []byte) string {
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil || mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		if bytes.HasPrefix(body, []byte("%PDF-")) {
			return kindPDF
		}
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML
	case mt == "application/pdf" || mt == "application/x-pdf":
		return kindPDF
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/javascript", mt == "application/ecmascript",
		mt == "application/x-ndjson", mt == "application/yaml", mt == "application/x-yaml",
		mt == "application/toml", mt == "application/x-sh", mt == "application/sql":
		return kindText
	}
	return mt
}

// htmlToMarkdown converts a page to Markdown, without the parts that are
// not content (scripts, styles, navigation, forms), with links made
// absolute against the page's URL. title is the page's <title>.
func htmlToMarkdown(body []byte, pageURL *url.URL) (text, title string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("converter failure: %v", r)
		}
	}()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	title = pageTitle(doc)
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	for _, tag := range []string{"nav", "footer", "aside", "form", "button", "select", "svg", "canvas", "dialog", "template", "object", "embed"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	md, err := conv.ConvertNode(doc, converter.WithDomain(pageURL.String()))
	if err != nil {
		return "", "", err
	}
	return strings.ToValidUTF8(strings.TrimSpace(string(md)), "\uFFFD"), title, nil
}

// pageTitle returns the text of the document's first <title>.
func pageTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := pageTitle(c); t != "" {
			return t
		}
	}
	return ""
}

// renderPDFPages joins extracted pages with page markers.
func renderPDFPages(doc *pdftext.Doc) string {
	var b strings.Builder
	for i, pg := range doc.Pages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[page %d of %d]\n", pg.Num, doc.NumPages)
		switch {
		case pg.Err != "":
			b.WriteString("(" + pg.Err + ")")
		case pg.Text == "":
			b.WriteString("(no text on this page; it may be a scanned image)")
		default:
			b.WriteString(pg.Text)
		}
	}
	return b.String()
}

// windowText returns head followed by text from the character offset,
// within budget characters in all; when text goes on, a last line says
// which offset to continue from. msg is set for an offset past the end.
func windowText(head, text string, offset, budget int, tool string) (out, msg string) {
	total := utf8.RuneCountInString(text)
	if offset > 0 && offset >= total {
		return "", fmt.Sprintf("Offset %d is at or beyond the end of the content (%d characters).", offset, total)
	}
	rest := text[runeOffsetOf(text, offset):]
	room := budget - utf8.RuneCountInString(head) - 120
	room = max(room, 500)
	if utf8.RuneCountInString(rest) <= room {
		if offset > 0 {
			head += fmt.Sprintf("[Characters %d-%d of %d.]\n\n", offset, total, total)
		}
		return head + rest, ""
	}
	cutAt := runeOffsetOf(rest, room)
	// End at a line break when one is near, so a Markdown line is whole.
	if nl := strings.LastIndexByte(rest[:cutAt], '\n'); nl > cutAt*4/5 {
		cutAt = nl + 1
	}
	shown := utf8.RuneCountInString(rest[:cutAt])
	next := offset + shown
	return fmt.Sprintf("%s%s\n\n[Showing characters %d-%d of %d. Call %s with offset=%d to read on.]",
		head, strings.TrimRight(rest[:cutAt], "\n"), offset, next, total, tool, next), ""
}

// runeOffsetOf returns the byte offset of the n-th rune of s (len(s) past
// the end).
func runeOffsetOf(s string, n int) int {
	if n <= 0 {
		return 0
	}
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// headerLine collapses whitespace (and line breaks a server might send) so a
// header value stays on its line.
func headerLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
