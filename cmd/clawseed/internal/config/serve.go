package config

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/permissions"
)

// The [serve] table configures `clawseed serve` (issue 26): where it
// listens, how long it waits, what a request may weigh, and who may call
// it. It is the operator's alone: no project file may set it, trusted or
// not (userOnly in projectRules), since a repository that could add a
// token, widen a token's workspaces or raise its autonomy would let
// whoever wrote it in.

// Serve is the [serve] table.
type Serve struct {
	// Listen is the address the server binds, "host:port".
	Listen string `toml:"listen"`
	// ApprovalTimeoutSecs bounds how long a tool call waits for its
	// approval over HTTP; past it the call is denied.
	ApprovalTimeoutSecs int `toml:"approval_timeout_secs"`
	// IdleTimeoutSecs is how long a session stays open in the server
	// after its last request; it is closed then (and resumed on demand).
	IdleTimeoutSecs int `toml:"idle_timeout_secs"`
	// HeaderTimeoutSecs bounds reading a request's headers (and, four
	// times over, its body): a slow client is dropped.
	HeaderTimeoutSecs int `toml:"header_timeout_secs"`
	// MaxBodyBytes caps a request body; a larger one is refused (413).
	MaxBodyBytes int `toml:"max_body_bytes"`
	// RateLimit is the requests a token (without tokens: a client
	// address) may make per minute; 0 means no limit.
	RateLimit int `toml:"rate_limit"`
	// TrustedProxies are the addresses (IPs or CIDR prefixes) whose
	// X-Forwarded-For and X-Forwarded-Proto are believed.
	TrustedProxies []string `toml:"trusted_proxies"`
	// Tokens are the bearer tokens, by name. None: the server binds only
	// a loopback address and anyone on the machine may call it.
	Tokens map[string]ServeToken `toml:"tokens"`
}

// ServeToken is one [serve.tokens.NAME] table.
type ServeToken struct {
	// SHA256 is the hex SHA-256 of the token: the config never holds the
	// token itself.
	SHA256 string `toml:"sha256"`
	// Workspaces are the absolute directories the token may use.
	Workspaces []string `toml:"workspaces"`
	// MaxAutonomy caps the autonomy of the token's sessions: a session
	// runs at the lower of [autonomy].level and this.
	MaxAutonomy string `toml:"max_autonomy"`
}

// DefaultServe returns the defaults of the [serve] table.
func DefaultServe() Serve {
	return Serve{
		Listen:              "127.0.0.1:8787",
		ApprovalTimeoutSecs: 600,
		IdleTimeoutSecs:     900,
		HeaderTimeoutSecs:   10,
		MaxBodyBytes:        1 << 20,
		RateLimit:           600,
		TrustedProxies:      []string{},
		Tokens:              map[string]ServeToken{},
	}
}

// DefaultServeToken returns the defaults of a [serve.tokens.NAME] table.
func DefaultServeToken() ServeToken {
	return ServeToken{Workspaces: []string{}, MaxAutonomy: "supervised"}
}

// serveKey is the dotted key of a [serve.tokens.NAME] table.
func serveTokenKey(name string) toml.Key { return toml.Key{"serve", "tokens", name} }

// checkServe validates the [serve] table: every value is checked at load,
// so `config check` reports a bad one with its file and line before the
// server starts.
func (c *Config) checkServe() error {
	s := c.Serve
	if err := c.usedAtLoad("serve.listen"); err != nil {
		return err
	}
	if _, _, err := SplitListen(s.Listen); err != nil {
		return c.invalid("serve.listen", err.Error())
	}
	for _, r := range []intRange{
		secsRange("serve.approval_timeout_secs", s.ApprovalTimeoutSecs, 1),
		secsRange("serve.idle_timeout_secs", s.IdleTimeoutSecs, 1),
		secsRange("serve.header_timeout_secs", s.HeaderTimeoutSecs, 1),
		atLeast("serve.max_body_bytes", s.MaxBodyBytes, 1024),
		atLeast("serve.rate_limit", s.RateLimit, 0),
	} {
		if err := c.checkInt(r); err != nil {
			return err
		}
	}
	if err := c.usedAtLoad("serve.trusted_proxies"); err != nil {
		return err
	}
	for _, p := range s.TrustedProxies {
		if _, err := ParseProxy(p); err != nil {
			return c.invalid("serve.trusted_proxies", err.Error())
		}
	}
	seen := map[string]string{}
	for _, name := range sortedKeys(s.Tokens) {
		t := s.Tokens[name]
		k := serveTokenKey(name)
		at := func(field string) string { return appendKey(k, field).String() }
		if err := c.Use(k.String()); err != nil {
			return err
		}
		sum := strings.ToLower(t.SHA256)
		if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 {
			return c.invalid(at("sha256"), "want the 64 hex digits of the token's SHA-256 (printf %s TOKEN | sha256sum)")
		}
		if other, dup := seen[sum]; dup {
			return c.invalid(at("sha256"), fmt.Sprintf("the same token as [serve.tokens.%s]", other))
		}
		seen[sum] = name
		if len(t.Workspaces) == 0 {
			key := at("workspaces")
			if c.Source(key) == "" {
				key = k.String() // not written: the table's line
			}
			return c.invalid(key, "a token needs at least one workspace (an absolute directory)")
		}
		for _, ws := range t.Workspaces {
			if msg := WorkspacePathProblem(ws); msg != "" {
				return c.invalid(at("workspaces"), fmt.Sprintf("%q: %s", ws, msg))
			}
		}
		if _, err := permissions.ParseLevel(t.MaxAutonomy); err != nil {
			return c.invalid(at("max_autonomy"), err.Error())
		}
	}
	return nil
}

// SplitListen splits a listen address "host:port" with a numeric port.
// The host may be empty (every address) or a name.
func SplitListen(addr string) (host string, port int, err error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%q is not host:port (%v)", addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return "", 0, fmt.Errorf("%q: the port must be a number from 0 to 65535", addr)
	}
	return h, n, nil
}

// ParseProxy parses one trusted_proxies entry: an IP address (a prefix of
// one address) or a CIDR prefix.
func ParseProxy(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("%q is not an IP address or CIDR prefix", s)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not an IP address or CIDR prefix", s)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// WorkspacePathProblem says why p cannot name a workspace of the server,
// "" when it can: it must be absolute, hold no NUL byte and no ".."
// element (a path is compared as written before it is resolved, so
// "/srv/a/../b" is refused rather than guessed at). Whether it exists and
// is a directory is checked where it is used.
func WorkspacePathProblem(p string) string {
	switch {
	case strings.TrimSpace(p) == "":
		return "empty path"
	case strings.ContainsRune(p, 0):
		return "a path cannot hold a NUL byte"
	case !filepath.IsAbs(p):
		return "not an absolute path"
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return `a path may not contain ".."`
		}
	}
	return ""
}
