package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/tools"
)

// webTools returns pdf_read, web_fetch, web_search and http_request, each
// when it can work. A table whose values use an unset ${VAR}, a search
// provider without its key or base_url, and http_request without
// allowed_domains leave their tool out with a line on env.notices;
// [webConfigError] reports the same problems as configuration errors, for
// callers that can stop the session.
func webTools(env toolEnv) []tools.Tool {
	cfg := env.cfg
	conf := env.confinement()
	pdf := pdfExtractor(conf.readOnlyStarter())
	var list []tools.Tool
	if !conf.refused() { // [sandbox].required with no sandbox: the child may not run
		list = append(list, tools.NewPDFRead(env.sb, tools.PDFReadOptions{MaxOutputChars: cfg.Agent.MaxToolOutputChars, Extract: pdf}))
	}
	net := env.proc.webNet()
	for _, build := range webBuilders() {
		t, err := build(cfg, pdf, net)
		switch {
		case err != nil:
			webNotice(env.notices, err)
		case t != nil:
			list = append(list, t)
		}
	}
	return list
}

// webConfigError returns the first configuration error (an unset ${VAR}
// in a value a web tool uses) that keeps a web tool from being registered,
// or nil. A session does not start on it, as on any used unset variable;
// a missing search key only leaves web_search out (see [webTools]).
func webConfigError(cfg *config.Config) error {
	for _, build := range webBuilders() {
		if _, err := build(cfg, nil, webNet{}); err != nil {
			if ce := (*config.Error)(nil); errors.As(err, &ce) {
				return ce
			}
		}
	}
	return nil
}

// webNet is what the network tools resolve names with (see
// [Process.Resolve]); the zero value is the system's resolver.
type webNet struct {
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	trusted []string
}

// webBuilders returns the builders of the network tools, in the order
// they are registered.
func webBuilders() []func(*config.Config, tools.PDFExtractor, webNet) (tools.Tool, error) {
	return []func(*config.Config, tools.PDFExtractor, webNet) (tools.Tool, error){webFetchTool, webSearchTool, httpRequestTool}
}

func webNotice(w io.Writer, err error) {
	if w != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}

// webFetchTool returns web_fetch, nil when [web_fetch] is disabled or
// allows no domain.
func webFetchTool(cfg *config.Config, pdf tools.PDFExtractor, net webNet) (tools.Tool, error) {
	c := cfg.WebFetch
	if !c.Enabled {
		return nil, nil
	}
	if err := cfg.Use("web_fetch"); err != nil {
		return nil, fmt.Errorf("web_fetch is not available: %w", err)
	}
	if len(c.AllowedDomains) == 0 {
		return nil, nil
	}
	return tools.NewWebFetch(tools.WebFetchOptions{
		AllowedDomains: c.AllowedDomains,
		BlockedDomains: c.BlockedDomains,
		MaxBytes:       int64(c.MaxBytes),
		Timeout:        c.Timeout(),
		MaxOutputChars: cfg.Agent.MaxToolOutputChars,
		PDF:            pdf,
		TrustedHosts:   net.trusted,
		Resolve:        net.resolve,
	}), nil
}

// webSearchTool returns web_search for [web_search].provider; an error when
// the provider lacks its key or base_url.
func webSearchTool(cfg *config.Config, _ tools.PDFExtractor, net webNet) (tools.Tool, error) {
	c := cfg.WebSearch
	if !c.Enabled {
		return nil, nil
	}
	keys := []string{"web_search.provider", "web_search.base_url", "web_search.timeout_secs"}
	key := c.APIKey
	switch c.Provider {
	case "brave", "tavily":
		keys = append(keys, "web_search.api_key")
		if key == "" {
			key = os.Getenv(map[string]string{"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY"}[c.Provider])
		}
	}
	if err := cfg.Use(keys...); err != nil {
		return nil, fmt.Errorf("web_search is not available: %w", err)
	}
	t, err := tools.NewWebSearch(tools.WebSearchOptions{
		Provider: c.Provider,
		APIKey:   key,
		BaseURL:  c.BaseURL,
		Timeout:  c.Timeout(),
		Resolve:  net.resolve,
	})
	if err != nil {
		return nil, fmt.Errorf("web_search is not available: %w", err)
	}
	return t, nil
}

// httpRequestTool returns http_request when [http_request] is enabled; an
// error when it is enabled without allowed_domains.
func httpRequestTool(cfg *config.Config, _ tools.PDFExtractor, net webNet) (tools.Tool, error) {
	c := cfg.HTTPRequest
	if !c.Enabled {
		return nil, nil
	}
	if err := cfg.Use("http_request"); err != nil {
		return nil, fmt.Errorf("http_request is not available: %w", err)
	}
	t, err := tools.NewHTTPRequest(tools.HTTPRequestOptions{
		AllowedDomains: c.AllowedDomains,
		MaxBytes:       int64(c.MaxBytes),
		Timeout:        c.Timeout(),
		MaxOutputChars: cfg.Agent.MaxToolOutputChars,
		TrustedHosts:   net.trusted,
		Resolve:        net.resolve,
	})
	if err != nil {
		return nil, fmt.Errorf("http_request is not available: %w", err)
	}
	return t, nil
}

// pdfExtractor runs PDF text extraction in a child process (this binary's
// hidden pdf-text command): the PDF library can loop or allocate without
// bound on hostile files, and a child can be killed. Without a path to
// this binary, extraction stays in process. start confines the child (it
// reads its standard input and writes nothing).
func pdfExtractor(start tools.Starter) tools.PDFExtractor {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return tools.ChildPDF(start, exe, "clawseed", PDFTextCommand)
}

// PDFTextCommand is the hidden command of [pdfExtractor]'s child: a
// request line and a PDF on stdin, the extracted text as JSON on stdout
// (tools.ServePDFText).
const PDFTextCommand = "pdf-text"
