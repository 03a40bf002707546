package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/tools"
)

// webTools returns pdf_read, web_fetch, web_search and http_request, each
// when it can work. A table whose values use an unset ${VAR}, a search
// provider without its key or base_url, and http_request without
// allowed_domains leave their tool out with a line on env.notices;
// [webConfigError] reports the same problems as errors for callers that
// can stop the session (exit 2).
func webTools(env toolEnv) []tools.Tool {
	cfg := env.cfg
	conf := env.confinement()
	pdf := pdfExtractor(conf.readOnlyStarter())
	var list []tools.Tool
	if !conf.refused() { // [sandbox].required with no sandbox: the child may not run
		list = append(list, tools.NewPDFRead(env.sb, tools.PDFReadOptions{MaxOutputChars: cfg.Agent.MaxToolOutputChars, Extract: pdf}))
	}
	for _, build := range []func(*config.Config, tools.PDFExtractor) (tools.Tool, error){webFetchTool, webSearchTool, httpRequestTool} {
		t, err := build(cfg, pdf)
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
// or nil. A session stops on it with exit 2, as on any used unset
// variable; a missing search key only leaves web_search out (see
// [webTools]).
func webConfigError(cfg *config.Config) error {
	for _, build := range []func(*config.Config, tools.PDFExtractor) (tools.Tool, error){webFetchTool, webSearchTool, httpRequestTool} {
		if _, err := build(cfg, nil); err != nil {
			if ce := (*config.Error)(nil); errors.As(err, &ce) {
				return ce
			}
		}
	}
	return nil
}

func webNotice(w io.Writer, err error) {
	if w != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}

// webFetchTool returns web_fetch, nil when [web_fetch] is disabled or
// allows no domain.
func webFetchTool(cfg *config.Config, pdf tools.PDFExtractor) (tools.Tool, error) {
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
	resolve, trusted := webTestNet.resolve, webTestNet.trusted
	return tools.NewWebFetch(tools.WebFetchOptions{
		AllowedDomains: c.AllowedDomains,
		BlockedDomains: c.BlockedDomains,
		MaxBytes:       int64(c.MaxBytes),
		Timeout:        c.Timeout(),
		MaxOutputChars: cfg.Agent.MaxToolOutputChars,
		PDF:            pdf,
		TrustedHosts:   trusted,
		Resolve:        resolve,
	}), nil
}

// webSearchTool returns web_search for [web_search].provider; an error when
// the provider lacks its key or base_url.
func webSearchTool(cfg *config.Config, _ tools.PDFExtractor) (tools.Tool, error) {
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
		Resolve:  webTestNet.resolve,
	})
	if err != nil {
		return nil, fmt.Errorf("web_search is not available: %w", err)
	}
	return t, nil
}

// httpRequestTool returns http_request when [http_request] is enabled; an
// error when it is enabled without allowed_domains.
func httpRequestTool(cfg *config.Config, _ tools.PDFExtractor) (tools.Tool, error) {
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
		TrustedHosts:   webTestNet.trusted,
		Resolve:        webTestNet.resolve,
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
	return tools.ChildPDF(start, exe, "clawseed", pdfTextCommand)
}

// pdfTextCommand is the hidden command of [pdfExtractor]'s child.
const pdfTextCommand = "pdf-text"

// newPDFTextCmd is the child side of pdfExtractor: a request line and a
// PDF on stdin, the extracted text as JSON on stdout.
func newPDFTextCmd(streams *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:    pdfTextCommand,
		Short:  "Extract the text of the PDF on stdin for pdf_read and web_fetch (internal)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return tools.ServePDFText(streams.In, streams.Out)
		},
	}
}

// webTestNet is set only by the test binary (script_web_test.go), so that
// scripts reach their local page server under a test host name through the
// real guard: resolve answers for the test names, trusted lists the names
// that may resolve to loopback. The production binary leaves both empty.
var webTestNet struct {
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	trusted []string
}
