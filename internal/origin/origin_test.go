package origin

import (
	"net/url"
	"testing"
)

func TestSame(t *testing.T) {
	cases := []struct {
		a, b string
		same bool
	}{
		{"https://api.example.com/v1", "https://api.example.com/other", true},
		{"https://api.example.com", "https://API.example.com:443/x", true},
		{"http://h", "http://h:80", true},
		{"https://h", "http://h", false},
		{"https://h", "https://h:8443", false},
		{"https://h", "https://evil.h", false},
		{"https://h", "https://h.evil", false},
		{"HTTPS://h", "https://h", true},
		{"ftp://h", "ftp://h:21", false},
	}
	for _, c := range cases {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := Same(a, b); got != c.same {
			t.Errorf("Same(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
