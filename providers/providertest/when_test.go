package providertest_test

import (
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// TestWhen checks conditional responses on both stand-ins: a response with
// When answers only a request mentioning it, whenever that request comes,
// and the others keep their order.
func TestWhen(t *testing.T) {
	t.Parallel()
	script, err := providertest.ParseScript([]byte(`{"text":"first"}
{"when":"<transcript>","text":"summary"}
{"text":"second"}
`))
	if err != nil {
		t.Fatal(err)
	}
	asks := []struct{ prompt, want string }{
		{"hello", "first"},
		{"please summarise <transcript>x</transcript>", "summary"},
		{"again <transcript>", "second"}, // the conditional one is used up
	}
	_, server := newServer(t, script...)
	stand := map[string]providers.Streamer{"model": providertest.NewModel(script...), "server": server}
	for name, s := range stand {
		for i, a := range asks {
			evs, err := drain(s.Stream(t.Context(), req(a.prompt)))
			if err != nil {
				t.Fatalf("%s: request %d: %v", name, i+1, err)
			}
			got := ""
			for _, ev := range evs {
				got += ev.Text
			}
			if got != a.want {
				t.Errorf("%s: request %d (%q) answered %q, want %q", name, i+1, a.prompt, got, a.want)
			}
		}
	}
}
