package tomltext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeyLines(t *testing.T) {
	t.Parallel()
	src := `# top
workspace_dir = "x" # c
[providers]
default = 'a'
[providers.models."gpt-4.1"]
model = """
multi = "line"
"""
extra_headers = { A = "1",
  'B' = { C = 2 } }
[ agent . "x y" ]
a.b = [ "]", { k = 1 } ]
c = '''
]]'''
d = 1
[[arr]]
e = 1979-05-27 07:32:00Z
`
	want := map[string]int{
		"workspace_dir":                                2,
		"providers":                                    3,
		"providers.default":                            4,
		"providers.models":                             5,
		`providers.models."gpt-4.1"`:                   5,
		`providers.models."gpt-4.1".model`:             6,
		`providers.models."gpt-4.1".extra_headers`:     9,
		`providers.models."gpt-4.1".extra_headers.A`:   9,
		`providers.models."gpt-4.1".extra_headers.B`:   10,
		`providers.models."gpt-4.1".extra_headers.B.C`: 10,
		"agent":             11,
		`agent."x y"`:       11,
		`agent."x y".a`:     12,
		`agent."x y".a.b`:   12,
		`agent."x y".a.b.k`: 12,
		`agent."x y".c`:     13,
		`agent."x y".d`:     15,
		"arr":               16,
		"arr.e":             17,
		"arr[0]":            16,
		"arr[0].e":          17,
	}
	if diff := cmp.Diff(want, KeyLines(src)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
