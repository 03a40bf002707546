package netguard

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// addrRange is a block of addresses the network tools never connect to,
// with the phrase that explains why ("a loopback address").
type addrRange struct {
	prefix netip.Prefix
	what   string
}

// metadataAddrs are the cloud instance-metadata endpoints. They are refused
// even for a host the user configured (a trusted search endpoint): nothing
// a tool does needs them, and they hand out credentials.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure WireServer (a public address)
}

// metadataHosts are host names of metadata services, refused before any
// lookup (they may resolve through a private DNS view).
var metadataHosts = []string{
	"metadata", "metadata.google.internal", "metadata.goog",
	"instance-data", "instance-data.ec2.internal", "metadata.azure.internal",
}

// blockedRanges lists the special-purpose blocks (IANA registries) that are
// not the public internet. Order matters only for the wording: the first
// match names the problem.
var blockedRanges = func() []addrRange {
	r := func(p, what string) addrRange { return addrRange{netip.MustParsePrefix(p), what} }
	return []addrRange{
		r("255.255.255.255/32", "the broadcast address"),
		r("0.0.0.0/8", "an unspecified (\"this network\") address"),
		r("10.0.0.0/8", "a private (RFC 1918) address"),
		r("172.16.0.0/12", "a private (RFC 1918) address"),
		r("192.168.0.0/16", "a private (RFC 1918) address"),
		r("100.64.0.0/10", "a shared carrier-grade NAT (CGNAT) address"),
		r("127.0.0.0/8", "a loopback address"),
		r("169.254.0.0/16", "a link-local address"),
		r("192.0.0.0/24", "an IETF protocol-assignment address"),
		r("192.0.2.0/24", "a documentation address"),
		r("198.51.100.0/24", "a documentation address"),
		r("203.0.113.0/24", "a documentation address"),
		r("198.18.0.0/15", "a benchmarking address"),
		r("224.0.0.0/4", "a multicast address"),
		r("240.0.0.0/4", "a reserved address"),
		r("::/128", "the unspecified address"),
		r("::1/128", "a loopback address"),
		r("::/96", "a deprecated IPv4-compatible address"),
		r("64:ff9b:1::/48", "a local-use NAT64 address"),
		r("100::/64", "a discard-only address"),
		r("2001::/32", "a Teredo tunnel address"),
		r("2001:2::/48", "a benchmarking address"),
		r("2001:db8::/32", "a documentation address"),
		r("3fff::/20", "a documentation address"),
		r("fc00::/7", "a private (unique local) address"),
		r("fe80::/10", "a link-local address"),
		r("fec0::/10", "a deprecated site-local address"),
		r("ff00::/8", "a multicast address"),
	}
}()

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
	ipv4Mapped  = netip.MustParsePrefix("::ffff:0:0/96")
)

// addrProblem says why the tools may not connect to a, or "" when a is a
// public address. trusted relaxes every rule but the metadata one: it is
// set for a host the user configured. IPv6 forms that carry an IPv4 address
// (IPv4-mapped, NAT64, 6to4) are judged by that address.
func addrProblem(a netip.Addr, trusted bool) string {
	a = a.WithZone("")
	if !a.IsValid() {
		return "not an IP address"
	}
	for _, m := range metadataAddrs {
		if a.Unmap() == m {
			return "a cloud metadata address"
		}
	}
	if v4, how := embeddedIPv4(a); how != "" {
		if p := addrProblem(v4, trusted); p != "" {
			return fmt.Sprintf("%s %s, %s", how, v4, p)
		}
		return ""
	}
	if trusted {
		return ""
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(a) {
			return r.what
		}
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address an IPv6 address stands for, and
// how ("an IPv4-mapped form of"), or "" when it carries none.
func embeddedIPv4(a netip.Addr) (netip.Addr, string) {
	if !a.Is6() {
		return netip.Addr{}, ""
	}
	b := a.As16()
	switch {
	case ipv4Mapped.Contains(a):
		return a.Unmap(), "an IPv4-mapped form of"
	case nat64Prefix.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "a NAT64 form of"
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), "a 6to4 form of"
	}
	return netip.Addr{}, ""
}

// parseHostIP reads host as an IP address: the usual forms, and the IPv4
// spellings that inet_aton and therefore many resolvers and browsers accept
// (2130706433, 0177.0.0.1, 0x7f.1, 127.1). canonical is false for the
// latter, so that a refusal can say what the host really is.
func parseHostIP(host string) (addr netip.Addr, canonical, ok bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true, true
	}
	if a, ok := parseLegacyIPv4(host); ok {
		return a, false, true
	}
	return netip.Addr{}, false, false
}

// parseLegacyIPv4 parses the inet_aton forms: one to four parts separated
// by dots, each decimal, octal (leading 0) or hex (0x); the last part fills
// the remaining bytes.
func parseLegacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseInetPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	for _, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	var n uint32
	for _, v := range vals[:last] {
		n = n<<8 | uint32(v)
	}
	n = n<<(8*(4-last)) | uint32(vals[last])
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseInetPart(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true // "0x" is 0 for inet_aton
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	v, err := strconv.ParseUint(p, base, 32)
	return v, err == nil
}
