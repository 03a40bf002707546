package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
)

// ErrNeedTokens is the refusal to listen on an address other machines
// can reach without [serve.tokens]: anyone who reached it would run the
// agent.
var ErrNeedTokens = errors.New("without [serve.tokens] the server listens only on a loopback address (127.0.0.1, [::1] or localhost); configure tokens to listen on other addresses")

// Listen binds addr ("" is [serve].listen). Without tokens the address
// must be loopback: a host that is not localhost or a loopback address
// is refused before binding, and the address bound is checked again
// (a name may resolve elsewhere).
func (s *Server) Listen(ctx context.Context, addr string) (net.Listener, error) {
	if addr == "" {
		addr = s.serve.Listen
	}
	host, _, err := config.SplitListen(addr)
	if err != nil {
		return nil, err
	}
	if len(s.tokens) == 0 && !loopbackHost(host) {
		return nil, fmt.Errorf("listen %s: %w", addr, ErrNeedTokens)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if len(s.tokens) == 0 {
		ap, err := netip.ParseAddrPort(ln.Addr().String())
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			ln.Close()
			return nil, fmt.Errorf("listen %s (bound %s): %w", addr, ln.Addr(), ErrNeedTokens)
		}
	}
	return ln, nil
}

// HTTPServer is the http.Server of the handler, with its limits: headers
// must arrive within [serve].header_timeout_secs (a slow client is
// dropped), headers are at most 64 KiB, idle connections close after two
// minutes. A body must arrive within four times the header timeout
// (decode sets that deadline while it reads) and an answer be taken
// within a minute (writeJSON's and the event streams' deadlines): the
// server's ReadTimeout and WriteTimeout would also cut a request that is
// slow through no fault of the client's (a session whose MCP servers take
// long to start) and cancel an event stream.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.headerTimeout(),
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(s.ctx) },
	}
}

func (s *Server) headerTimeout() time.Duration {
	return time.Duration(s.serve.HeaderTimeoutSecs) * time.Second
}

// URL is how a client reaches the listener ln.
func URL(ln net.Listener, tls bool) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	addr := ln.Addr().String()
	if ap, err := netip.ParseAddrPort(addr); err == nil && ap.Addr().IsUnspecified() {
		addr = strings.Replace(addr, ap.Addr().String(), "localhost", 1)
		addr = strings.Replace(addr, "[localhost]", "localhost", 1)
	}
	return scheme + "://" + addr
}
