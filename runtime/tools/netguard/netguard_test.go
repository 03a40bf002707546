package netguard

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// fakeDNS answers lookups from a table; names not in it do not exist.
type fakeDNS map[string][]string

func (f fakeDNS) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	answers, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(answers))
	for i, a := range answers {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

func TestAddrProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr    string
		trusted bool
		want    string
	}{
		{addr: "8.8.8.8", want: ""},
		{addr: "93.184.216.34", want: ""},
		{addr: "2606:4700:4700::1111", want: ""},
		{addr: "127.0.0.1", want: "a loopback address"},
		{addr: "127.255.0.9", want: "a loopback address"},
		{addr: "::1", want: "a loopback address"},
		{addr: "0.0.0.0", want: `an unspecified ("this network") address`},
		{addr: "::", want: "the unspecified address"},
		{addr: "10.1.2.3", want: "a private (RFC 1918) address"},
		{addr: "172.16.0.1", want: "a private (RFC 1918) address"},
		{addr: "172.31.255.255", want: "a private (RFC 1918) address"},
		{addr: "172.32.0.1", want: ""},
		{addr: "192.168.1.1", want: "a private (RFC 1918) address"},
		{addr: "fd12:3456::1", want: "a private (unique local) address"},
		{addr: "fc00::1", want: "a private (unique local) address"},
		{addr: "169.254.1.1", want: "a link-local address"},
		{addr: "fe80::1", want: "a link-local address"},
		{addr: "fe80::1%eth0", want: "a link-local address"},
		{addr: "100.64.0.1", want: "a shared carrier-grade NAT (CGNAT) address"},
		{addr: "100.127.255.254", want: "a shared carrier-grade NAT (CGNAT) address"},
		{addr: "224.0.0.1", want: "a multicast address"},
		{addr: "ff02::1", want: "a multicast address"},
		{addr: "255.255.255.255", want: "the broadcast address"},
		{addr: "240.0.0.1", want: "a reserved address"},
		{addr: "192.0.2.1", want: "a documentation address"},
		{addr: "2001:db8::1", want: "a documentation address"},
		{addr: "198.18.0.1", want: "a benchmarking address"},
		{addr: "192.0.0.8", want: "an IETF protocol-assignment address"},
		{addr: "169.254.169.254", want: "a cloud metadata address"},
		{addr: "fd00:ec2::254", want: "a cloud metadata address"},
		{addr: "100.100.100.200", want: "a cloud metadata address"},
		{addr: "168.63.129.16", want: "a cloud metadata address"},
		// IPv6 spellings of IPv4 addresses are judged by the IPv4 address.
		{addr: "::ffff:127.0.0.1", want: "an IPv4-mapped form of 127.0.0.1, a loopback address"},
		{addr: "::ffff:7f00:1", want: "an IPv4-mapped form of 127.0.0.1, a loopback address"},
		{addr: "::ffff:169.254.169.254", want: "a cloud metadata address"},
		{addr: "::ffff:10.0.0.1", want: "an IPv4-mapped form of 10.0.0.1, a private (RFC 1918) address"},
		{addr: "::ffff:8.8.8.8", want: ""},
		{addr: "64:ff9b::7f00:1", want: "a NAT64 form of 127.0.0.1, a loopback address"},
		{addr: "64:ff9b::a9fe:a9fe", want: "a NAT64 form of 169.254.169.254, a cloud metadata address"},
		{addr: "64:ff9b::808:808", want: ""},
		{addr: "64:ff9b:1::1", want: "a local-use NAT64 address"},
		{addr: "2002:7f00:1::1", want: "a 6to4 form of 127.0.0.1, a loopback address"},
		{addr: "::127.0.0.1", want: "a deprecated IPv4-compatible address"},
		{addr: "2001::1", want: "a Teredo tunnel address"},
		{addr: "fec0::1", want: "a deprecated site-local address"},
		// A host the user configured may be private, never metadata.
		{addr: "127.0.0.1", trusted: true, want: ""},
		{addr: "192.168.1.10", trusted: true, want: ""},
		{addr: "169.254.169.254", trusted: true, want: "a cloud metadata address"},
		{addr: "::ffff:169.254.169.254", trusted: true, want: "a cloud metadata address"},
		{addr: "64:ff9b::a9fe:a9fe", trusted: true, want: "a NAT64 form of 169.254.169.254, a cloud metadata address"},
	}
	for _, tt := range tests {
		if got := addrProblem(netip.MustParseAddr(tt.addr), tt.trusted); got != tt.want {
			t.Errorf("addrProblem(%s, trusted=%v) = %q, want %q", tt.addr, tt.trusted, got, tt.want)
		}
	}
}

func TestParseHostIP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host      string
		want      string // "" = not an IP address
		canonical bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"::1", "::1", true},
		{"2130706433", "127.0.0.1", false},
		{"0177.0.0.1", "127.0.0.1", false},
		{"0x7f.1", "127.0.0.1", false},
		{"0x7f.0.0.1", "127.0.0.1", false},
		{"0x7F000001", "127.0.0.1", false},
		{"017700000001", "127.0.0.1", false},
		{"127.1", "127.0.0.1", false},
		{"169.254.43518", "169.254.169.254", false},
		{"0xa9fea9fe", "169.254.169.254", false},
		{"0", "0.0.0.0", false},
		{"4294967295", "255.255.255.255", false},
		{"4294967296", "", false},
		{"256.0.0.1", "", false},
		{"1.2.3.4.5", "", false},
		{"08.0.0.1", "", false},
		{"0x", "0.0.0.0", false},
		{"example.com", "", false},
		{"1e2", "", false},
		{"", "", false},
		{"1..1", "", false},
	}
	for _, tt := range tests {
		a, canonical, ok := parseHostIP(tt.host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want || (ok && canonical != tt.canonical) {
			t.Errorf("parseHostIP(%q) = %q canonical=%v, want %q canonical=%v", tt.host, got, canonical, tt.want, tt.canonical)
		}
	}
}

func TestHostMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, host string
		want          bool
	}{
		{"*", "example.com", true},
		{"example.com", "example.com", true},
		{"example.com", "api.example.com", true},
		{"example.com", "badexample.com", false},
		{"Example.COM.", "example.com", true},
		{"*.example.com", "api.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"api-?.example.com", "api-1.example.com", true},
		{"", "example.com", false},
		{"[", "example.com", false},
	}
	for _, tt := range tests {
		if got := hostMatches(tt.pattern, tt.host); got != tt.want {
			t.Errorf("hostMatches(%q, %q) = %v, want %v", tt.pattern, tt.host, got, tt.want)
		}
	}
}

// TestCheckURL: what can be refused before any lookup, with the sentence the
// model reads.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	g := &Guard{Table: "web_fetch", Allowed: []string{"*"}, Blocked: []string{"evil.example", "*.tracker.test"}}
	narrow := &Guard{Table: "http_request", Allowed: []string{"api.example.com", "*.svc.example.org"}}
	const public = " Only public internet addresses can be reached; do not retry with another spelling of this address."
	tests := []struct {
		g    *Guard
		url  string
		want string
	}{
		{g, "https://example.com/page", ""},
		{g, "http://93.184.216.34/", ""},
		{g, "ftp://example.com/file", "Refused ftp://example.com/file: only http:// and https:// URLs are allowed."},
		{g, "file:///etc/passwd", "Refused file:///etc/passwd: only http:// and https:// URLs are allowed."},
		{g, "gopher://127.0.0.1:25/", "Refused gopher://127.0.0.1:25/: only http:// and https:// URLs are allowed."},
		{g, "http://user:pw@example.com/", "Refused http://user:xxxxx@example.com/: URLs with a user name or password (user@host) are not allowed."},
		{g, "http://example.com@127.0.0.1/", "Refused http://example.com@127.0.0.1/: URLs with a user name or password (user@host) are not allowed."},
		{g, "http:///path", "Refused http:///path: the URL has no host."},
		{g, "http://127.0.0.1:8080/admin", "Refused http://127.0.0.1:8080/admin: 127.0.0.1 is a loopback address." + public},
		{g, "http://[::1]/", "Refused http://[::1]/: ::1 is a loopback address." + public},
		{g, "http://[::ffff:127.0.0.1]/", "Refused http://[::ffff:127.0.0.1]/: ::ffff:127.0.0.1 is an IPv4-mapped form of 127.0.0.1, a loopback address." + public},
		{g, "http://[::ffff:169.254.169.254]/", "Refused http://[::ffff:169.254.169.254]/: ::ffff:169.254.169.254 is a cloud metadata address." + public},
		{g, "http://[64:ff9b::7f00:1]/", "Refused http://[64:ff9b::7f00:1]/: 64:ff9b::7f00:1 is a NAT64 form of 127.0.0.1, a loopback address." + public},
		{g, "http://[fe80::1%25eth0]/", "Refused http://[fe80::1%25eth0]/: fe80::1%eth0 is a link-local address." + public},
		{g, "http://2130706433/", "Refused http://2130706433/: 2130706433 (the IPv4 address 127.0.0.1) is a loopback address." + public},
		{g, "http://0177.0.0.1/", "Refused http://0177.0.0.1/: 0177.0.0.1 (the IPv4 address 127.0.0.1) is a loopback address." + public},
		{g, "http://0x7f.1/", "Refused http://0x7f.1/: 0x7f.1 (the IPv4 address 127.0.0.1) is a loopback address." + public},
		{g, "http://0xa9fea9fe/latest/meta-data/", "Refused http://0xa9fea9fe/latest/meta-data/: 0xa9fea9fe (the IPv4 address 169.254.169.254) is a cloud metadata address." + public},
		{g, "http://169.254.169.254/latest/meta-data/", "Refused http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a cloud metadata address." + public},
		{g, "http://[fd00:ec2::254]/", "Refused http://[fd00:ec2::254]/: fd00:ec2::254 is a cloud metadata address." + public},
		{g, "http://metadata.google.internal/computeMetadata/v1/", "Refused http://metadata.google.internal/computeMetadata/v1/: metadata.google.internal is a cloud metadata service."},
		{g, "http://METADATA.google.internal./", "Refused http://METADATA.google.internal./: metadata.google.internal is a cloud metadata service."},
		{g, "http://10.0.0.5/", "Refused http://10.0.0.5/: 10.0.0.5 is a private (RFC 1918) address." + public},
		{g, "http://100.64.1.1/", "Refused http://100.64.1.1/: 100.64.1.1 is a shared carrier-grade NAT (CGNAT) address." + public},
		{g, "http://0.0.0.0:8000/", "Refused http://0.0.0.0:8000/: 0.0.0.0 is an unspecified (\"this network\") address." + public},
		{g, "https://evil.example/x", `Refused https://evil.example/x: evil.example is blocked by [web_fetch].blocked_domains ("evil.example").`},
		{g, "https://www.evil.example/x", `Refused https://www.evil.example/x: www.evil.example is blocked by [web_fetch].blocked_domains ("evil.example").`},
		{g, "https://a.tracker.test/", `Refused https://a.tracker.test/: a.tracker.test is blocked by [web_fetch].blocked_domains ("*.tracker.test").`},
		{narrow, "https://api.example.com/v1", ""},
		{narrow, "https://x.svc.example.org/v1", ""},
		{narrow, "https://example.net/", "Refused https://example.net/: example.net is not in [http_request].allowed_domains (allowed: api.example.com, *.svc.example.org)."},
		{&Guard{Table: "web_fetch"}, "https://example.com/", "Refused https://example.com/: example.com is not in [web_fetch].allowed_domains (the list is empty)."},
		// A host name passes here; its addresses are checked when dialling.
		{g, "http://localhost/", ""},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		got := ""
		if err := tt.g.CheckURL(u); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckURL(%s)\n got %q\nwant %q", tt.url, got, tt.want)
		}
	}
}

// TestGuardResolve: every address a name resolves to must pass, and the
// addresses returned are the ones dialled.
func TestGuardResolve(t *testing.T) {
	t.Parallel()
	dns := fakeDNS{
		"public.test":      {"93.184.216.34", "2606:2800:220:1::1"},
		"loop.test":        {"127.0.0.1"},
		"mapped.test":      {"::ffff:127.0.0.1"},
		"mapped-meta.test": {"::ffff:169.254.169.254"},
		"mixed.test":       {"93.184.216.34", "10.0.0.7"},
		"meta.test":        {"169.254.169.254"},
		"intranet.test":    {"10.1.2.3"},
		"empty.test":       {},
	}
	g := &Guard{Table: "web_fetch", Allowed: []string{"*"}, Trusted: []string{"intranet.test", "meta.test"}, Resolve: dns.resolve}
	const public = " Only public internet addresses can be reached; do not retry with another spelling of this address."
	tests := []struct {
		host    string
		want    string
		wantErr string
	}{
		{host: "public.test", want: "[93.184.216.34 2606:2800:220:1::1]"},
		{host: "PUBLIC.test.", want: "[93.184.216.34 2606:2800:220:1::1]"},
		{host: "8.8.8.8", want: "[8.8.8.8]"},
		{host: "loop.test", wantErr: "Refused to connect to loop.test: it resolves to 127.0.0.1, a loopback address." + public},
		{host: "mapped.test", wantErr: "Refused to connect to mapped.test: it resolves to 127.0.0.1, a loopback address." + public},
		{host: "mapped-meta.test", wantErr: "Refused to connect to mapped-meta.test: it resolves to 169.254.169.254, a cloud metadata address." + public},
		{host: "mixed.test", wantErr: "Refused to connect to mixed.test: it resolves to 10.0.0.7, a private (RFC 1918) address." + public},
		{host: "intranet.test", want: "[10.1.2.3]"},
		{host: "meta.test", wantErr: "Refused to connect to meta.test: it resolves to 169.254.169.254, a cloud metadata address." + public},
		{host: "127.0.0.1", wantErr: "Refused to connect to 127.0.0.1: it is a loopback address." + public},
		{host: "2130706433", wantErr: "Refused to connect to 2130706433 (the IPv4 address 127.0.0.1): it is a loopback address." + public},
		{host: "metadata.google.internal", wantErr: "Refused to connect to metadata.google.internal: it is a cloud metadata service."},
		{host: "nowhere.test", wantErr: "the host nowhere.test does not exist (DNS lookup found no such name)"},
		{host: "empty.test", wantErr: "the host empty.test has no addresses"},
	}
	for _, tt := range tests {
		addrs, err := g.resolve(t.Context(), tt.host)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("resolve(%s) error\n got %v\nwant %q", tt.host, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("resolve(%s): %v", tt.host, err)
			continue
		}
		if got := fmtAddrs(addrs); got != tt.want {
			t.Errorf("resolve(%s) = %s, want %s", tt.host, got, tt.want)
		}
	}
}

func fmtAddrs(as []netip.Addr) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// TestDialOnlyChecked: the socket may connect only to an address that was
// checked, whatever asks the dialer for another.
func TestDialOnlyChecked(t *testing.T) {
	t.Parallel()
	control := dialOnly([]netip.Addr{netip.MustParseAddr("93.184.216.34")})
	if err := control("tcp4", "93.184.216.34:443", nil); err != nil {
		t.Errorf("checked address refused: %v", err)
	}
	for _, addr := range []string{"127.0.0.1:443", "[::1]:443", "169.254.169.254:80", "[::ffff:127.0.0.1]:80", "nonsense"} {
		if err := control("tcp", addr, nil); err == nil {
			t.Errorf("dialOnly let %s through", addr)
		}
	}
}

// TestRedirectChecks: a redirect to https→http is refused (the other checks
// are the URL checks, exercised through web_fetch).
func TestRedirectDowngrade(t *testing.T) {
	t.Parallel()
	g := &Guard{Table: "web_fetch", Allowed: []string{"*"}}
	from, _ := http.NewRequest("GET", "https://example.com/a", nil)
	to, _ := http.NewRequest("GET", "http://example.com/b", nil)
	err := g.Client().CheckRedirect(to, []*http.Request{from})
	want := "Refused the redirect from https://example.com/a to http://example.com/b: it leaves https for plain http. Request the http URL directly if it is really wanted."
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
