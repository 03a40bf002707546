package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/permissions"
)

// Who may call the server. With [serve.tokens] configured, every API
// request carries `Authorization: Bearer TOKEN`, matched by its SHA-256
// against the tokens' in constant time; the token decides the workspaces
// and the highest autonomy of what the request does. Without tokens the
// server listens only on loopback (listen.go) and answers only requests
// whose Host is a loopback name, so that a web page elsewhere cannot
// reach it through DNS rebinding; cross-origin browser requests that
// change something are refused either way (http.CrossOriginProtection).

// A principal is who a request acts for.
type principal struct {
	// name is the token's name, "" without tokens.
	name string
	// workspaces are the real paths the token may use; nil (no tokens)
	// means every trusted workspace.
	workspaces []string
	// max caps the autonomy of the sessions it runs; "" is no cap.
	max permissions.Level
	// rateKey is what the rate limit counts by.
	rateKey string
}

// allows reports whether p may use the workspace at real path ws.
func (p *principal) allows(ws string) bool {
	return p.workspaces == nil || slices.Contains(p.workspaces, ws)
}

// level is the autonomy of a session p runs in a workspace whose
// configuration says cfgLevel.
func (p *principal) level(cfgLevel permissions.Level) permissions.Level {
	if p.max == "" {
		return cfgLevel
	}
	return cfgLevel.Lower(p.max)
}

// A token is one [serve.tokens.NAME] table, resolved at start.
type token struct {
	name       string
	sum        [sha256.Size]byte
	workspaces []string
	max        permissions.Level
}

// newTokens resolves the configured tokens, sorted by name: each
// workspace to its real path (one that does not resolve now is kept
// cleaned, with a warning; it can never match a request until it exists).
func newTokens(cfg map[string]config.ServeToken, warn func(msg string, args ...any)) []token {
	names := make([]string, 0, len(cfg))
	for name := range cfg {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]token, 0, len(names))
	for _, name := range names {
		c := cfg[name]
		t := token{name: name}
		sum, _ := hex.DecodeString(strings.ToLower(c.SHA256)) // config checked it
		copy(t.sum[:], sum)
		t.max, _ = permissions.ParseLevel(c.MaxAutonomy)
		for _, ws := range c.Workspaces {
			real, err := filepath.EvalSymlinks(filepath.Clean(ws))
			if err != nil {
				warn("Token workspace does not resolve", "token", name, "workspace", ws, "error", err)
				real = filepath.Clean(ws)
			}
			t.workspaces = append(t.workspaces, real)
		}
		out = append(out, t)
	}
	return out
}

// authenticate returns who r acts for: the token it carries, or, without
// tokens configured, the local user.
func (s *Server) authenticate(r *http.Request) (*principal, *apiError) {
	if len(s.tokens) == 0 {
		return &principal{rateKey: "ip:" + s.clientIP(r).String()}, nil
	}
	auth := r.Header.Get("Authorization")
	scheme, secret, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		return nil, errorf(http.StatusUnauthorized, "unauthorized", "send Authorization: Bearer TOKEN")
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(secret)))
	var found *token
	for i := range s.tokens {
		// Every token is compared, so the time taken says nothing of
		// which one matched.
		if subtle.ConstantTimeCompare(sum[:], s.tokens[i].sum[:]) == 1 {
			found = &s.tokens[i]
		}
	}
	if found == nil {
		return nil, errorf(http.StatusUnauthorized, "unauthorized", "unknown token")
	}
	return &principal{name: found.name, workspaces: found.workspaces, max: found.max, rateKey: "token:" + found.name}, nil
}

// loopbackHost reports whether a request's Host names this machine:
// localhost or a loopback address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// clientIP is the address of the client: the peer's, or, when the peer
// is a trusted proxy, the last address of X-Forwarded-For that is not
// one (proxies append: what is left of the first untrusted hop was
// written by the client and proves nothing).
func (s *Server) clientIP(r *http.Request) netip.Addr {
	peer := remoteAddr(r)
	if !s.trustedProxy(peer) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		a = a.Unmap()
		if !s.trustedProxy(a) {
			return a
		}
		peer = a
	}
	return peer
}

// scheme is "https" when the request came over TLS, or through a trusted
// proxy that says so in X-Forwarded-Proto.
func (s *Server) scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	if s.trustedProxy(remoteAddr(r)) && strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https") {
		return "https"
	}
	return "http"
}

func (s *Server) trustedProxy(a netip.Addr) bool {
	for _, p := range s.proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// remoteAddr is the peer's address (the zero Addr when it has none).
func remoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		a, _ := netip.ParseAddr(r.RemoteAddr)
		return a.Unmap()
	}
	return ap.Addr().Unmap()
}
