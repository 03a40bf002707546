package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// TestCostFromPriceList runs a scripted session through the CLI and checks
// cost_usd and /cost against figures computed here from the built-in price
// list and the config's price override (cost.txtar shows the same session
// through the binary).
func TestCostFromPriceList(t *testing.T) {
	usage := []providers.Usage{
		{InputTokens: 10_000, OutputTokens: 200, CachedInputTokens: 8_000}, // run, gpt-5
		{InputTokens: 12_000, OutputTokens: 300, CachedInputTokens: 11_000},
		{InputTokens: 4_000, OutputTokens: 100, CachedInputTokens: 1_000}, // chat, gpt-5
		{InputTokens: 5_000, OutputTokens: 50, CachedInputTokens: 4_000},  // chat, house-model
	}
	srv := providertest.NewServer([]providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "glob_search", Args: `{"pattern":"*.txt"}`}}, Usage: &usage[0]},
		{Text: "One file.", Usage: &usage[1]},
		{Text: "hi", Usage: &usage[2]},
		{Text: "yo", Usage: &usage[3]},
	})
	defer srv.Close()

	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	clawHome := filepath.Join(home, ".clawseed")
	for _, d := range []string{clawHome, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := `[providers]
default = "main"

[providers.models.main]
provider = "openai-compatible"
base_url = "` + srv.URL() + `"
model = "gpt-5"

[providers.models.house]
provider = "openai-compatible"
base_url = "` + srv.URL() + `"
model = "house-model"
price = { input = 2.0, output = 8.0, cache_read = 0.5 }

[memory]
extract = "off" # an extraction request would take the next scripted response
`
	if err := os.WriteFile(filepath.Join(clawHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAWSEED_HOME", clawHome)
	t.Setenv("NO_COLOR", "1")
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "CLAWSEED_API_KEY", "CLAWSEED_PROVIDER", "CLAWSEED_MODEL"} {
		t.Setenv(k, "")
	}
	cli := func(stdin string, args ...string) string {
		t.Helper()
		var out, errw bytes.Buffer
		if code := run(append([]string{"--workspace", ws}, args...), strings.NewReader(stdin), &out, &errw); code != 0 {
			t.Fatalf("clawseed %v: exit %d\n%s%s", args, code, out.String(), errw.String())
		}
		return out.String()
	}

	gpt5, ok := config.ListedPrice("gpt-5")
	if !ok {
		t.Fatal("gpt-5 is not on the price list")
	}
	house := providers.Price{Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2}
	micro := func(v float64) float64 { return math.Round(v*1e6) / 1e6 }

	var res runResult
	if err := json.Unmarshal([]byte(cli("", "run", "--output", "json", "list files")), &res); err != nil {
		t.Fatal(err)
	}
	turn := usage[0]
	turn.Add(usage[1])
	want := micro(gpt5.Cost(turn))
	if res.CostUSD == nil || *res.CostUSD != want {
		t.Errorf("cost_usd = %v, want %v (gpt-5 at %s)", res.CostUSD, want, gpt5)
	}

	out := cli("hello\n/model house\nagain\n/cost\nexit\n", "chat")
	chatGPT, chatHouse := gpt5.Cost(usage[2]), house.Cost(usage[3])
	for _, line := range []string{
		": $" + strconv.FormatFloat(chatGPT, 'f', 6, 64) + "\n",
		": $" + strconv.FormatFloat(chatHouse, 'f', 6, 64) + "\n",
		"Cost: $" + strconv.FormatFloat(chatGPT+chatHouse, 'f', 6, 64) + "\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("/cost lacks %q:\n%s", line, out)
		}
	}
}
