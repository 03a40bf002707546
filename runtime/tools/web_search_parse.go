package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// searchResult is one search hit.
type searchResult struct {
	Title, URL, Snippet string
}

// Lengths a result is cut to: titles and snippets are for choosing what to
// fetch, not for reading.
const (
	maxResultTitle   = 200
	maxResultSnippet = 400
	maxResultURL     = 1000
)

// errDDGChallenge means DuckDuckGo answered with its bot check instead of
// results.
var errDDGChallenge = errors.New("DuckDuckGo answered with a bot check instead of results (too many automated searches from this address); wait and try again, or set [web_search].provider to brave, searxng or tavily")

// parseDuckDuckGo reads the results of DuckDuckGo's HTML endpoint
// (html.duckduckgo.com/html/, also the lite layout): each result's link
// `a.result__a` (lite: `a.result-link`), its snippet `.result__snippet`
// (lite: `.result-snippet`), skipping ads (`.result--ad`, y.js links).
// Redirect links (/l/?uddg=) are unwrapped; results without an http(s)
// URL are dropped.
func parseDuckDuckGo(body []byte) ([]searchResult, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("the DuckDuckGo page could not be parsed: %w", err)
	}
	var out []searchResult
	pending := -1 // the result waiting for its snippet (lite: in the next row)
	challenge := false
	var walk func(n *html.Node, ad bool)
	walk = func(n *html.Node, ad bool) {
		if n.Type == html.ElementNode {
			cls := htmlClasses(n)
			if slices.Contains(cls, "result--ad") || slices.Contains(cls, "result--ad--small") || slices.Contains(cls, "result-sponsored") {
				ad = true
			}
			if slices.Contains(cls, "anomaly-modal__modal") || htmlAttr(n, "id") == "challenge-form" {
				challenge = true
			}
			switch {
			case n.Data == "a" && (slices.Contains(cls, "result__a") || slices.Contains(cls, "result-link")):
				pending = -1
				if ad {
					return
				}
				u := unwrapDDG(htmlAttr(n, "href"))
				title := clipRunes(htmlText(n), maxResultTitle)
				if u == "" || title == "" {
					return
				}
				out = append(out, searchResult{Title: title, URL: u})
				pending = len(out) - 1
				return
			case slices.Contains(cls, "result__snippet") || slices.Contains(cls, "result-snippet"):
				if pending >= 0 && out[pending].Snippet == "" && !ad {
					out[pending].Snippet = clipRunes(htmlText(n), maxResultSnippet)
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, ad)
		}
	}
	walk(doc, false)
	if len(out) == 0 && challenge {
		return nil, errDDGChallenge
	}
	return dedupeResults(out), nil
}

// unwrapDDG returns the target of a DuckDuckGo result link: the uddg
// parameter of a /l/ redirect, or the link itself; "" for ads and for
// anything that is not an absolute http(s) URL.
func unwrapDDG(href string) string {
	href = strings.TrimSpace(href)
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	isDDG := host == "" || host == "duckduckgo.com" || strings.HasSuffix(host, ".duckduckgo.com")
	if isDDG && u.Path == "/y.js" {
		return "" // an ad's click-tracking link
	}
	if isDDG && strings.HasPrefix(u.Path, "/l/") {
		target := u.Query().Get("uddg")
		if target == "" {
			return ""
		}
		return absHTTPURL(target)
	}
	return absHTTPURL(href)
}

// absHTTPURL returns s when it is an absolute http(s) URL with a host, else "".
func absHTTPURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	out := u.String()
	if len(out) > maxResultURL || !utf8.ValidString(out) {
		return ""
	}
	return out
}

// parseBrave reads the Brave Search API's web results.
func parseBrave(body []byte) ([]searchResult, error) {
	var r struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the Brave answer is not the expected JSON: %w", err)
	}
	var out []searchResult
	for _, x := range r.Web.Results {
		out = appendResult(out, x.Title, x.URL, x.Description)
	}
	return dedupeResults(out), nil
}

// parseSearXNG reads a SearXNG instance's JSON results (format=json).
func parseSearXNG(body []byte) ([]searchResult, error) {
	var r struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the SearXNG answer is not the expected JSON (is format=json enabled in the instance's search.formats?): %w", err)
	}
	var out []searchResult
	for _, x := range r.Results {
		out = appendResult(out, x.Title, x.URL, x.Content)
	}
	return dedupeResults(out), nil
}

// parseTavily reads the Tavily search API's results.
func parseTavily(body []byte) ([]searchResult, error) {
	var r struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the Tavily answer is not the expected JSON: %w", err)
	}
	var out []searchResult
	for _, x := range r.Results {
		out = appendResult(out, x.Title, x.URL, x.Content)
	}
	return dedupeResults(out), nil
}

// appendResult adds a result from an API, whose titles and snippets may
// hold HTML markup (Brave's <strong>) and entities.
func appendResult(out []searchResult, title, link, snippet string) []searchResult {
	u := absHTTPURL(link)
	if u == "" {
		return out
	}
	t := clipRunes(stripMarkup(title), maxResultTitle)
	if t == "" {
		t = u
	}
	return append(out, searchResult{Title: t, URL: u, Snippet: clipRunes(stripMarkup(snippet), maxResultSnippet)})
}

// dedupeResults drops results whose URL came earlier.
func dedupeResults(rs []searchResult) []searchResult {
	seen := make(map[string]bool, len(rs))
	out := rs[:0]
	for _, r := range rs {
		if !seen[r.URL] {
			seen[r.URL] = true
			out = append(out, r)
		}
	}
	return out
}

// stripMarkup returns the text of an HTML fragment on one line.
func stripMarkup(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return strings.Join(strings.Fields(s), " ")
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return strings.Join(strings.Fields(s), " ")
	}
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(htmlText(n))
		b.WriteByte(' ')
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// htmlText returns the text inside n with whitespace collapsed.
func htmlText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(strings.ToValidUTF8(b.String(), "\uFFFD")), " ")
}

func htmlClasses(n *html.Node) []string { return strings.Fields(htmlAttr(n, "class")) }

func htmlAttr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}

// clipRunes shortens s to n characters, marking the cut with "…".
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
