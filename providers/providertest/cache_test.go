package providertest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// sized returns obj with field set to a filler text that starts with tag
// and makes obj's canonical JSON (without cache_control) exactly tokens×4
// bytes, so each part of a prompt has a known token count.
func sized(obj map[string]any, field, tag string, tokens int) map[string]any {
	cc, hasCC := obj["cache_control"]
	delete(obj, "cache_control")
	obj[field] = ""
	b, _ := json.Marshal(obj)
	pad := tokens*providertest.BytesPerToken - len(b) - len(tag)
	if pad < 0 {
		panic("sized: too small")
	}
	obj[field] = tag + strings.Repeat("x", pad)
	if hasCC {
		obj["cache_control"] = cc
	}
	return obj
}

var ephemeral = map[string]any{"type": "ephemeral"}

// blk is an Anthropic text block of the given tokens; cc marks a breakpoint.
func blk(tag string, tokens int, cc bool) map[string]any {
	b := sized(map[string]any{"type": "text"}, "text", tag, tokens)
	if cc {
		b["cache_control"] = ephemeral
	}
	return b
}

func tool(name string, tokens int, cc bool) map[string]any {
	t := sized(map[string]any{"name": name, "input_schema": map[string]any{"type": "object"}}, "description", name, tokens)
	if cc {
		t["cache_control"] = ephemeral
	}
	return t
}

type anMsg struct {
	role   string
	blocks []map[string]any
}

func anBody(model string, tools []map[string]any, system any, msgs ...anMsg) []byte {
	var messages []map[string]any
	for _, m := range msgs {
		messages = append(messages, map[string]any{"role": m.role, "content": m.blocks})
	}
	b, _ := json.Marshal(map[string]any{"model": model, "max_tokens": 1024, "stream": true,
		"tools": tools, "system": system, "messages": messages})
	return b
}

func user(blocks ...map[string]any) anMsg      { return anMsg{"user", blocks} }
func assistant(blocks ...map[string]any) anMsg { return anMsg{"assistant", blocks} }

// TestCacheEmulatorAnthropic walks a session through the Anthropic rules
// with parts of known sizes: tools 1000 tokens (breakpoint, but under the
// 1,024-token minimum), fixed system block 800, messages of 100–200.
func TestCacheEmulatorAnthropic(t *testing.T) {
	t.Parallel()
	tools := []map[string]any{tool("t1", 400, false), tool("t2", 600, true)}
	sys := []map[string]any{blk("S1", 800, true)}
	sysSkill := []map[string]any{blk("S1", 800, true), blk("S2", 300, true)}
	u1, a1, u2 := blk("U1", 200, true), blk("A1", 100, false), blk("U2", 100, true)
	var many []map[string]any
	for i := range 22 {
		many = append(many, blk(fmt.Sprintf("M%d", i), 10, i == 21))
	}
	plain := func(b map[string]any) map[string]any { // b without its breakpoint
		c := map[string]any{}
		for k, v := range b {
			if k != "cache_control" {
				c[k] = v
			}
		}
		return c
	}
	changedTools := []map[string]any{tool("t1", 401, false), tool("t2", 600, true)}
	steps := []struct {
		name string
		body []byte
		want providers.Usage
	}{
		// Breakpoints at 1000 (too short to cache), 1800 and 2000: all written.
		{"first request", anBody("claude", tools, sys, user(u1)), providers.Usage{InputTokens: 2000, CacheWriteTokens: 2000}},
		{"same again", anBody("claude", tools, sys, user(u1)), providers.Usage{InputTokens: 2000, CachedInputTokens: 2000}},
		// The last breakpoint moved two blocks on; looking back finds 2000.
		{"next turn", anBody("claude", tools, sys, user(plain(u1)), assistant(a1), user(u2)),
			providers.Usage{InputTokens: 2200, CachedInputTokens: 2000, CacheWriteTokens: 200}},
		// An activation adds a system block: tools and the fixed block
		// (1800) still hit; the skill block and the history are written.
		{"activation", anBody("claude", tools, sysSkill, user(plain(u1)), assistant(a1), user(plain(u2)), assistant(blk("A2", 100, false)), user(blk("U3", 100, true))),
			providers.Usage{InputTokens: 2700, CachedInputTokens: 1800, CacheWriteTokens: 900}},
		// 22 new blocks: the entry at 2700 is 22 blocks before the last
		// breakpoint, past the 20-block lookback; the skill block's hits.
		{"beyond lookback", anBody("claude", tools, sysSkill, user(plain(u1)), assistant(a1), user(plain(u2)), assistant(blk("A2", 100, false)), user(blk("U3", 100, false)), assistant(many...)),
			providers.Usage{InputTokens: 2920, CachedInputTokens: 2100, CacheWriteTokens: 820}},
		// A string system prompt is the same text block.
		{"string system", anBody("claude", tools, sys[0]["text"], user(u1)), providers.Usage{InputTokens: 2000, CachedInputTokens: 2000}},
		{"other model", anBody("claude-other", tools, sys, user(u1)), providers.Usage{InputTokens: 2000, CacheWriteTokens: 2000}},
		{"tools changed", anBody("claude", changedTools, sys, user(u1)), providers.Usage{InputTokens: 2001, CacheWriteTokens: 2001}},
		{"no breakpoints", anBody("claude", []map[string]any{plain(tools[0]), plain(tools[1])}, []map[string]any{plain(sys[0])}, user(plain(u1))),
			providers.Usage{InputTokens: 2000}},
		{"short prompt", anBody("claude", nil, nil, user(blk("short", 1000, true))), providers.Usage{InputTokens: 1000}},
		{"short prompt again", anBody("claude", nil, nil, user(blk("short", 1000, true))), providers.Usage{InputTokens: 1000}},
	}
	e := providertest.NewCacheEmulator()
	var total providertest.CacheStats
	for _, s := range steps {
		got, err := e.Observe(providertest.WireAnthropic, s.body, 3)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		s.want.OutputTokens = 3
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
		total.Add(s.want)
	}
	if diff := cmp.Diff(total, e.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

// oaMsg is an OpenAI message whose canonical JSON plus the separating
// newline is exactly tokens×4 bytes.
func oaMsg(role, tag string, tokens int) map[string]any {
	m := map[string]any{"role": role, "content": ""}
	b, _ := json.Marshal(m)
	m["content"] = tag + strings.Repeat("x", tokens*providertest.BytesPerToken-len(b)-1-len(tag))
	return m
}

func oaBody(model string, tools []map[string]any, msgs ...map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"model": model, "stream": true, "tools": tools, "messages": msgs})
	return b
}

// TestCacheEmulatorOpenAI checks automatic prefix caching: the longest
// prefix seen before, in 128-token steps from 1,024 tokens.
func TestCacheEmulatorOpenAI(t *testing.T) {
	t.Parallel()
	sys, u1 := oaMsg("system", "S", 1000), oaMsg("user", "U1", 200)
	a1, u2 := oaMsg("assistant", "A1", 100), oaMsg("user", "U2", 100)
	long := oaMsg("system", "L", 1100)
	fn := map[string]any{"type": "function", "function": map[string]any{"name": "f", "parameters": map[string]any{}}}
	steps := []struct {
		name string
		body []byte
		want providers.Usage
	}{
		{"first", oaBody("gpt", nil, sys, u1), providers.Usage{InputTokens: 1200}},
		{"same again", oaBody("gpt", nil, sys, u1), providers.Usage{InputTokens: 1200, CachedInputTokens: 1152}},
		{"next turn", oaBody("gpt", nil, sys, u1, a1, u2), providers.Usage{InputTokens: 1400, CachedInputTokens: 1152}},
		{"next turn again", oaBody("gpt", nil, sys, u1, a1, u2), providers.Usage{InputTokens: 1400, CachedInputTokens: 1280}},
		// The tool is 59 bytes with its newline: ⌈(5600+59)/4⌉ = 1415.
		{"tools in front", oaBody("gpt", []map[string]any{fn}, sys, u1, a1, u2), providers.Usage{InputTokens: 1415}},
		{"other model", oaBody("gpt-mini", nil, sys, u1, a1, u2), providers.Usage{InputTokens: 1400}},
		// Common prefix 1100 tokens and a few bytes: one step of 1,024.
		{"diverging", oaBody("gpt", nil, long, oaMsg("user", "a", 200)), providers.Usage{InputTokens: 1300}},
		{"diverging 2", oaBody("gpt", nil, long, oaMsg("user", "b", 200)), providers.Usage{InputTokens: 1300, CachedInputTokens: 1024}},
		{"short", oaBody("gpt", nil, oaMsg("user", "short", 1000)), providers.Usage{InputTokens: 1000}},
		{"short again", oaBody("gpt", nil, oaMsg("user", "short", 1000)), providers.Usage{InputTokens: 1000}},
	}
	e := providertest.NewCacheEmulator()
	for _, s := range steps {
		got, err := e.Observe(providertest.WireOpenAI, s.body, 0)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	if st := e.Stats(); st.Requests != len(steps) || st.CachedTokens != 1152+1152+1280+1024 {
		t.Errorf("stats = %+v", st)
	}
}

func rsCacheBody(model, key, instructions string, input any) []byte {
	body := map[string]any{"model": model, "stream": true, "store": false, "input": input}
	if key != "" {
		body["prompt_cache_key"] = key
	}
	if instructions != "" {
		body["instructions"] = instructions
	}
	b, _ := json.Marshal(body)
	return b
}

// instructions returns instructions whose part ({"instructions":…} and
// its newline) is exactly tokens×4 bytes.
func instructions(tag string, tokens int) string {
	return tag + strings.Repeat("x", tokens*providertest.BytesPerToken-len(`{"instructions":""}`)-1-len(tag))
}

// TestCacheEmulatorResponses checks automatic prefix caching on the
// Responses wire: the instructions, then the input items; a string input
// is one user message; another prompt_cache_key is another cache.
func TestCacheEmulatorResponses(t *testing.T) {
	t.Parallel()
	sys, u1 := instructions("S", 1000), oaMsg("user", "U1", 200)
	a1, u2 := oaMsg("assistant", "A1", 100), oaMsg("user", "U2", 100)
	long := strings.Repeat("q", 4*1100)
	items := func(m ...map[string]any) []map[string]any { return m }
	steps := []struct {
		name string
		body []byte
		want providers.Usage
	}{
		{"first", rsCacheBody("gpt", "s1", sys, items(u1)), providers.Usage{InputTokens: 1200}},
		{"same again", rsCacheBody("gpt", "s1", sys, items(u1)), providers.Usage{InputTokens: 1200, CachedInputTokens: 1152}},
		{"next turn", rsCacheBody("gpt", "s1", sys, items(u1, a1, u2)), providers.Usage{InputTokens: 1400, CachedInputTokens: 1152}},
		{"next turn again", rsCacheBody("gpt", "s1", sys, items(u1, a1, u2)), providers.Usage{InputTokens: 1400, CachedInputTokens: 1280}},
		{"other cache key", rsCacheBody("gpt", "s2", sys, items(u1, a1, u2)), providers.Usage{InputTokens: 1400}},
		{"other model", rsCacheBody("gpt-mini", "s1", sys, items(u1, a1, u2)), providers.Usage{InputTokens: 1400}},
		// The same message as an input string and as an item: 4,400 bytes of
		// text, 28 of JSON and a newline.
		{"string input", rsCacheBody("gpt", "", "", long), providers.Usage{InputTokens: 1108}},
		{"item input", rsCacheBody("gpt", "", "", items(map[string]any{"role": "user", "content": long})), providers.Usage{InputTokens: 1108, CachedInputTokens: 1024}},
	}
	e := providertest.NewCacheEmulator()
	for _, s := range steps {
		got, err := e.Observe(providertest.WireResponses, s.body, 0)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
}

// TestCacheEmulatorCanonical checks that encodings of the same content
// are the same prompt: escaped or not, keys in any order, spaces.
func TestCacheEmulatorCanonical(t *testing.T) {
	t.Parallel()
	text := "<skill> & " + strings.Repeat("y", 5000)
	a := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"` + text + `","cache_control":{"type":"ephemeral"}}]}]}`
	esc, _ := json.Marshal(text) // \u003cskill\u003e \u0026 …
	b := `{ "messages": [ { "content": [ { "cache_control": {"type":"ephemeral"}, "text": ` + string(esc) + `, "type": "text" } ], "role": "user" } ], "model": "m" }`
	e := providertest.NewCacheEmulator()
	first, err := e.Observe(providertest.WireAnthropic, []byte(a), 0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.Observe(providertest.WireAnthropic, []byte(b), 0)
	if err != nil {
		t.Fatal(err)
	}
	if first.CacheWriteTokens == 0 || second.CachedInputTokens != first.CacheWriteTokens || second.InputTokens != first.InputTokens {
		t.Errorf("first %+v, second %+v: want the second to read what the first wrote", first, second)
	}
}

func TestCacheEmulatorBadBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		wire providertest.Wire
		body string
	}{
		{providertest.WireAnthropic, `[]`},
		{providertest.WireAnthropic, `{"messages":[{"role":"user","content":[1]}]}`},
		{providertest.WireAnthropic, `{"messages":[{"role":"user","content":7}]}`},
		{providertest.WireAnthropic, `{"tools":["x"]}`},
		{providertest.WireAnthropic, `{"system":[null]}`},
		{providertest.WireOpenAI, `[]`},
		{providertest.WireOpenAI, `{"tools":["x"]}`},
		{providertest.WireOpenAI, `{"messages":[1]}`},
		{providertest.WireResponses, `[]`},
		{providertest.WireResponses, `{"input":7}`},
		{providertest.WireResponses, `{"input":[1]}`},
		{providertest.WireResponses, `{"tools":["x"]}`},
		{"gemini", `{}`},
	}
	e := providertest.NewCacheEmulator()
	for _, tt := range tests {
		if u, err := e.Observe(tt.wire, []byte(tt.body), 1); err == nil || u.OutputTokens != 1 {
			t.Errorf("%s %s: usage %+v, err %v; want the output tokens and an error", tt.wire, tt.body, u, err)
		}
	}
	if st := e.Stats(); st.Requests != 0 {
		t.Errorf("stats = %+v, want nothing counted", st)
	}
}

// BenchmarkCacheEmulator measures one Observe of a long session's request
// (30 tools, a 3,000-token system prompt, 200 messages) on each wire.
func BenchmarkCacheEmulator(b *testing.B) {
	var tools []map[string]any
	for i := range 30 {
		tools = append(tools, tool(fmt.Sprintf("tool%02d", i), 60, i == 29))
	}
	var msgs []anMsg
	var oaMsgs []map[string]any
	oaMsgs = append(oaMsgs, oaMsg("system", "S", 3000))
	for i := range 200 {
		role := []string{"user", "assistant"}[i%2]
		msgs = append(msgs, anMsg{role, []map[string]any{blk(fmt.Sprintf("m%d", i), 50, i == 199)}})
		oaMsgs = append(oaMsgs, oaMsg(role, fmt.Sprintf("m%d", i), 50))
	}
	bodies := map[providertest.Wire][]byte{
		providertest.WireAnthropic: anBody("claude", tools, []map[string]any{blk("S", 3000, true)}, msgs...),
		providertest.WireOpenAI:    oaBody("gpt", nil, oaMsgs...),
	}
	for _, wire := range []providertest.Wire{providertest.WireAnthropic, providertest.WireOpenAI} {
		b.Run(string(wire), func(b *testing.B) {
			e := providertest.NewCacheEmulator()
			b.SetBytes(int64(len(bodies[wire])))
			for b.Loop() {
				if _, err := e.Observe(wire, bodies[wire], 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
