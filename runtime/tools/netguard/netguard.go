// Package netguard decides which URLs clawseed's network tools (web_fetch,
// web_search, http_request) may request and which addresses they may
// connect to: their protection against server-side request forgery.
//
// A [Guard] checks every URL — the first and each redirect — against the
// scheme, credential and domain rules, resolves the host once, requires
// every address to be a public internet address, and dials only those
// addresses, so a second DNS answer (rebinding) is never used. Its
// refusals ([Refusal]) are sentences for the model.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"
)

// maxRedirects is how many redirects the network tools follow.
const maxRedirects = 10

// A Guard decides which URLs a network tool may request and which
// addresses it may connect to (server-side request forgery protection).
//
// Every URL — the first and each redirect — must be http or https, carry no
// user:password@, and have a host the domain lists allow. The host is then
// resolved once, every address it resolves to must be a public internet
// address (see [addrProblem]), and the connection goes to one of exactly
// those addresses: the dialer refuses any other, so a second, different DNS
// answer (rebinding) is never used.
type Guard struct {
	// Table names the configuration table in messages ("web_fetch").
	Table string
	// Allowed are host patterns (see [hostMatches]) a URL's host must match;
	// empty allows none.
	Allowed []string
	// Blocked are host patterns refused even when allowed.
	Blocked []string
	// Trusted are exact host names the user configured (a SearXNG
	// base_url), compared without regard to case or a trailing dot: they
	// may resolve to private or loopback addresses, never to a cloud
	// metadata address. Model-supplied hosts are never trusted.
	Trusted []string
	// Resolve returns the addresses of a host name; nil uses the system
	// resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// A Refusal is a URL or address the guard refused. Its text is a
// sentence for the model.
type Refusal struct{ msg string }

// Error returns the sentence.
func (e *Refusal) Error() string { return e.msg }

func refusal(format string, args ...any) error {
	return &Refusal{msg: fmt.Sprintf(format, args...)}
}

// normHost lower-cases a host and drops a trailing dot.
func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// CheckURL checks what can be checked without DNS: the scheme, credentials
// in the URL, the domain lists, metadata host names, and IP-literal hosts.
func (g *Guard) CheckURL(u *url.URL) error {
	shown := u.Redacted()
	if u.Scheme != "http" && u.Scheme != "https" {
		return refusal("Refused %s: only http:// and https:// URLs are allowed.", shown)
	}
	if u.User != nil {
		return refusal("Refused %s: URLs with a user name or password (user@host) are not allowed.", shown)
	}
	host := normHost(u.Hostname())
	if host == "" {
		return refusal("Refused %s: the URL has no host.", shown)
	}
	name := host
	ip, canonical, isIP := parseHostIP(host)
	if isIP {
		name = ip.WithZone("").String()
	}
	if pat, ok := firstHostMatch(g.Blocked, name); ok {
		return refusal("Refused %s: %s is blocked by [%s].blocked_domains (%q).", shown, name, g.Table, pat)
	}
	if _, ok := firstHostMatch(g.Allowed, name); !ok {
		return refusal("Refused %s: %s is not in [%s].allowed_domains (%s).", shown, name, g.Table, listPatterns(g.Allowed))
	}
	if slices.Contains(metadataHosts, host) {
		return refusal("Refused %s: %s is a cloud metadata service.", shown, host)
	}
	if isIP {
		if p := addrProblem(ip, g.trusted(host)); p != "" {
			return refusal("Refused %s: %s%s is %s. %s", shown, host, spelledAs(ip, canonical), p, publicOnly)
		}
	}
	return nil
}

// publicOnly ends address refusals: what the model can do about them.
const publicOnly = "Only public internet addresses can be reached; do not retry with another spelling of this address."

// spelledAs notes the real address of a non-canonical IP spelling.
func spelledAs(ip netip.Addr, canonical bool) string {
	if canonical {
		return ""
	}
	return " (the IPv4 address " + ip.String() + ")"
}

// trusted reports whether host (normalized) is one of g.Trusted.
func (g *Guard) trusted(host string) bool {
	return slices.ContainsFunc(g.Trusted, func(t string) bool { return normHost(t) == host })
}

// resolve returns the addresses to dial for host: the literal itself, or
// every address DNS gives, each of which must pass.
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	host = normHost(host)
	trusted := g.trusted(host)
	if ip, canonical, ok := parseHostIP(host); ok {
		if p := addrProblem(ip, trusted); p != "" {
			return nil, refusal("Refused to connect to %s%s: it is %s. %s", host, spelledAs(ip, canonical), p, publicOnly)
		}
		return []netip.Addr{ip.WithZone("")}, nil
	}
	if slices.Contains(metadataHosts, host) {
		return nil, refusal("Refused to connect to %s: it is a cloud metadata service.", host)
	}
	lookup := g.Resolve
	if lookup == nil {
		lookup = func(ctx context.Context, h string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", h)
		}
	}
	addrs, err := lookup(ctx, host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, fmt.Errorf("the host %s does not exist (DNS lookup found no such name)", host)
		}
		return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("the host %s has no addresses", host)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		// The system resolver gives IPv4 answers in their IPv4-mapped
		// form; they are judged (and named) as IPv4.
		a = a.WithZone("").Unmap()
		// Every answer must pass: a name that also points inside the
		// network is refused as a whole rather than tried address by address.
		if p := addrProblem(a, trusted); p != "" {
			return nil, refusal("Refused to connect to %s: it resolves to %s, %s. %s", host, a, p, publicOnly)
		}
		out = append(out, a)
	}
	return out, nil
}

// DialContext resolves and checks the host of addr and connects to one of
// the checked addresses, in order.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{Timeout: 30 * time.Second, Control: dialOnly(ips)}
	var firstErr error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// dialOnly returns a net.Dialer Control function that lets a socket connect
// only to one of ips: whatever the path to the dialer, the address actually
// connected to is one that was checked.
func dialOnly(ips []netip.Addr) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refusal("Refused to connect to %s: not an IP address.", address)
		}
		if !slices.Contains(ips, ap.Addr().WithZone("").Unmap()) {
			return refusal("Refused to connect to %s: it is not an address that was checked.", address)
		}
		return nil
	}
}

// Client returns an HTTP client that reaches the network only through the
// guard: no proxy from the environment (it would resolve names itself), no
// cookies, at most maxRedirects redirects, each checked with [Guard.CheckURL], and
// no redirect from https to http.
func (g *Guard) Client() *http.Client {
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    15 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return refusal("Stopped after %d redirects (the last one to %s).", maxRedirects, req.URL.Redacted())
			}
			prev := via[len(via)-1].URL
			if prev.Scheme == "https" && req.URL.Scheme == "http" {
				return refusal("Refused the redirect from %s to %s: it leaves https for plain http. Request the http URL directly if it is really wanted.", prev.Redacted(), req.URL.Redacted())
			}
			if err := g.CheckURL(req.URL); err != nil {
				return refusal("Refused the redirect from %s: %s", prev.Redacted(), err)
			}
			return nil
		},
	}
}

// ErrorText turns the error of a request to u, made with a [Guard.Client]
// and a timeout, into a sentence for the model: a refusal as it is, a
// timeout as such, anything else with its cause.
func ErrorText(err error, u string, timeout time.Duration) string {
	var ref *Refusal
	if errors.As(err, &ref) {
		return ref.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return fmt.Sprintf("Request to %s timed out after %s.", u, timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprintf("Request to %s failed: %v.", u, err)
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// hostMatches reports whether host matches a domain pattern: a pattern
// with wildcards is a glob over the whole host (`*.example.com`, `*`);
// a plain name matches itself and its subdomains (`example.com` matches
// `api.example.com`), so that blocking a domain blocks all of it.
func hostMatches(pattern, host string) bool {
	pattern = normHost(strings.TrimSpace(pattern))
	if pattern == "" {
		return false
	}
	if strings.ContainsAny(pattern, "*?[") {
		ok, err := path.Match(pattern, host)
		return err == nil && ok
	}
	return host == pattern || strings.HasSuffix(host, "."+pattern)
}

// firstHostMatch returns the first pattern that host matches.
func firstHostMatch(patterns []string, host string) (string, bool) {
	for _, p := range patterns {
		if hostMatches(p, host) {
			return p, true
		}
	}
	return "", false
}

// listPatterns shows a domain list in a message, cut after a few entries.
func listPatterns(ps []string) string {
	if len(ps) == 0 {
		return "the list is empty"
	}
	const show = 8
	if len(ps) <= show {
		return "allowed: " + strings.Join(ps, ", ")
	}
	return fmt.Sprintf("allowed: %s and %d more", strings.Join(ps[:show], ", "), len(ps)-show)
}
