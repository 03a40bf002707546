package config

import "testing"

func TestModelVision(t *testing.T) {
	tests := []struct {
		model string
		want  bool
	}{
		{"claude-sonnet-4-5", true},
		{"anthropic/claude-opus-4", true},
		{"claude-2.1", false},
		{"gpt-4o-mini", true},
		{"GPT-5", true},
		{"o3-mini", false},
		{"o3", true},
		{"deepseek-chat", false},
		{"qwen3-coder", false},
		{"fake-model", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ModelVision(tt.model); got != tt.want {
			t.Errorf("ModelVision(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
}

func TestVisionKey(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want bool
	}{
		{"known model", "[providers.models.m]\nprovider = \"anthropic\"\napi_key = \"k\"\nmodel = \"claude-sonnet-4-5\"\n", true},
		{"unknown model", "[providers.models.m]\nprovider = \"openai-compatible\"\nbase_url = \"http://x/v1\"\nmodel = \"local\"\n", false},
		{"set true", "[providers.models.m]\nprovider = \"openai-compatible\"\nbase_url = \"http://x/v1\"\nmodel = \"local\"\nvision = true\n", true},
		{"set false", "[providers.models.m]\nprovider = \"anthropic\"\napi_key = \"k\"\nmodel = \"claude-sonnet-4-5\"\nvision = false\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			writeFile(t, s.userFile(), tt.toml)
			r, err := mustLoad(t, s.opts(nil)).ResolveModel("m", nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Vision != tt.want {
				t.Errorf("Vision = %v, want %v", r.Vision, tt.want)
			}
		})
	}
}

func TestVisionFor(t *testing.T) {
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[providers.models.set]\nprovider = \"anthropic\"\napi_key = \"k\"\nvision = false\n[providers.models.unset]\nprovider = \"anthropic\"\napi_key = \"k\"\n")
	c := mustLoad(t, s.opts(nil))
	tests := []struct {
		name, model string
		want        bool
	}{
		{"set", "claude-sonnet-4-5", false},
		{"unset", "claude-sonnet-4-5", true},
		{"unset", "local-model", false},
		{"missing", "gpt-4o", true},
	}
	for _, tt := range tests {
		if got := c.VisionFor(tt.name, tt.model); got != tt.want {
			t.Errorf("VisionFor(%q, %q) = %v, want %v", tt.name, tt.model, got, tt.want)
		}
	}
}
