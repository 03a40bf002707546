package providertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/clawseed/clawseed/providers"
)

// A Wire is the API format of a request the [Server] received.
type Wire string

// The wires the Server speaks.
const (
	WireOpenAI    Wire = "openai"    // Chat Completions, at …/chat/completions
	WireAnthropic Wire = "anthropic" // Messages, at …/messages
	WireResponses Wire = "responses" // OpenAI Responses, at …/responses
)

// The rules of the [CacheEmulator].
const (
	// BytesPerToken is the emulator's token estimate: a prompt part of n
	// bytes (in its canonical serialisation) is ⌈n/4⌉ tokens.
	BytesPerToken = 4
	// MinCacheTokens is the shortest prefix either wire caches.
	MinCacheTokens = 1024
	// OpenAICacheStep is the granularity of OpenAI's cache hits above
	// MinCacheTokens.
	OpenAICacheStep = 128
	// AnthropicLookback is how many block boundaries before a cache_control
	// breakpoint Anthropic checks for an earlier cache entry.
	AnthropicLookback = 20
)

// tokensOf returns the estimated tokens of n bytes.
func tokensOf(n int) int { return (n + BytesPerToken - 1) / BytesPerToken }

// CacheStats sums the usage a [CacheEmulator] computed.
type CacheStats struct {
	// Requests is the number of requests counted.
	Requests int `json:"requests"`
	// InputTokens is the whole prompts, cached or not.
	InputTokens int `json:"input_tokens"`
	// CachedTokens is the part of InputTokens read from the cache.
	CachedTokens int `json:"cached_tokens"`
	// CacheWriteTokens is the part of InputTokens written to the cache
	// (Anthropic only; OpenAI caches without saying so).
	CacheWriteTokens int `json:"cache_write_tokens"`
	// OutputTokens is the estimated tokens of the scripted answers.
	OutputTokens int `json:"output_tokens"`
}

// Add counts one request's usage.
func (c *CacheStats) Add(u providers.Usage) {
	c.Requests++
	c.InputTokens += u.InputTokens
	c.CachedTokens += u.CachedInputTokens
	c.CacheWriteTokens += u.CacheWriteTokens
	c.OutputTokens += u.OutputTokens
}

// HitRatio is the share of input tokens read from the cache (0 when there
// was no input).
func (c CacheStats) HitRatio() float64 {
	if c.InputTokens == 0 {
		return 0
	}
	return float64(c.CachedTokens) / float64(c.InputTokens)
}

// A CacheEmulator imitates the prompt caches of the wires, so tests and
// benchmarks can measure how much of a session's input a provider would
// serve from its cache. It is deterministic and safe for concurrent use;
// its state only grows (no expiry).
//
// A prompt is cut into parts, each serialised canonically (a JSON object
// re-encoded with sorted keys, no space, strings unescaped but for JSON's
// own escapes, and without its cache_control key) and counted as
// ⌈bytes/4⌉ tokens. Parts are
// identified by a hash chain seeded with the wire and the model, so two
// prompts share a cache entry only if everything up to it is the same.
//
// Anthropic (explicit caching): the parts are the tools, then the system
// blocks (a string is one block), then every content block of every
// message (a string content is one block), in that order; a part with
// cache_control is a breakpoint. For each breakpoint the longest prefix
// that was written by an earlier request and ends at the breakpoint or at
// one of the AnthropicLookback block boundaries before it is a hit; the
// longest hit over all breakpoints is read (cache_read_input_tokens). If
// the prefix up to the last breakpoint has at least MinCacheTokens, the
// tokens from the hit up to the last breakpoint are written
// (cache_creation_input_tokens), and so is an entry for every breakpoint
// past the hit whose prefix has at least MinCacheTokens. The rest is
// uncached input_tokens. Without breakpoints nothing is read or written.
//
// OpenAI (automatic caching): the prompt is the tools, then the messages
// (system included), as one byte string; on the Responses wire it is the
// tools, the instructions, then the input items, and requests share a
// cache only when they also have the same prompt_cache_key. The longest prefix of it that an
// earlier request of the same model also had, counted in whole
// OpenAICacheStep-token steps and only from MinCacheTokens on, is
// cached_tokens; every request's own prefixes are remembered.
//
// The [providers.Usage] returned follows the neutral convention:
// InputTokens is the whole prompt, CachedInputTokens and CacheWriteTokens
// are parts of it.
type CacheEmulator struct {
	mu      sync.Mutex
	entries map[[32]byte]bool
	stats   CacheStats
}

// NewCacheEmulator returns an emulator with empty caches.
func NewCacheEmulator() *CacheEmulator {
	return &CacheEmulator{entries: make(map[[32]byte]bool)}
}

// Observe computes the usage of a request body sent on wire, whose answer
// is outputTokens long, and records its prompt in the cache. A body it
// cannot read leaves the cache and the totals alone.
func (e *CacheEmulator) Observe(wire Wire, body []byte, outputTokens int) (providers.Usage, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var (
		u   providers.Usage
		err error
	)
	switch wire {
	case WireAnthropic:
		u, err = e.anthropic(body)
	case WireOpenAI:
		u, err = e.openAI(body)
	case WireResponses:
		u, err = e.responses(body)
	default:
		err = fmt.Errorf("unknown wire %q", wire)
	}
	u.OutputTokens = outputTokens
	if err != nil {
		return u, fmt.Errorf("cache emulator: %w", err)
	}
	e.stats.Add(u)
	return u, nil
}

// Stats returns the totals of the requests observed so far.
func (e *CacheEmulator) Stats() CacheStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// A promptPart is one block (Anthropic) or one tool, message or input item
// (OpenAI) in canonical form.
type promptPart struct {
	kind       string // "tool", "system", or the role of a message's first block; "" for later blocks
	canon      []byte
	breakpoint bool
}

type anthropicPrompt struct {
	Model    string            `json:"model"`
	Tools    []json.RawMessage `json:"tools"`
	System   json.RawMessage   `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (e *CacheEmulator) anthropic(body []byte) (providers.Usage, error) {
	var p anthropicPrompt
	if err := json.Unmarshal(body, &p); err != nil {
		return providers.Usage{}, err
	}
	parts, err := anthropicParts(p)
	if err != nil {
		return providers.Usage{}, err
	}
	n := len(parts)
	cum := make([]int, n+1) // cum[i]: tokens of the first i parts
	hash := make([][32]byte, n+1)
	hash[0] = sha256.Sum256([]byte("anthropic\x00" + p.Model))
	var breaks []int // 1-based: the prefix of the first i parts ends at breakpoint i
	for i, part := range parts {
		cum[i+1] = cum[i] + tokensOf(len(part.canon))
		hash[i+1] = chain(hash[i], part.kind, part.canon)
		if part.breakpoint {
			breaks = append(breaks, i+1)
		}
	}
	u := providers.Usage{InputTokens: cum[n]}
	if len(breaks) == 0 {
		return u, nil
	}
	hit := 0
	for _, b := range breaks {
		for j := b; j >= max(1, b-AnthropicLookback); j-- {
			if e.entries[hash[j]] {
				hit = max(hit, j)
				break
			}
		}
	}
	last := breaks[len(breaks)-1]
	u.CachedInputTokens = cum[hit]
	if last > hit && cum[last] >= MinCacheTokens {
		u.CacheWriteTokens = cum[last] - cum[hit]
		for _, b := range breaks {
			if b > hit && cum[b] >= MinCacheTokens {
				e.entries[hash[b]] = true
			}
		}
	}
	return u, nil
}

// anthropicParts lists the blocks of a Messages request in cache order.
func anthropicParts(p anthropicPrompt) ([]promptPart, error) {
	var parts []promptPart
	for i, t := range p.Tools {
		part, err := canonicalPart("tool", t)
		if err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		parts = append(parts, part)
	}
	sys, err := contentParts("system", p.System)
	if err != nil {
		return nil, fmt.Errorf("system: %w", err)
	}
	parts = append(parts, sys...)
	for i, m := range p.Messages {
		blocks, err := contentParts(m.Role, m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		parts = append(parts, blocks...)
	}
	return parts, nil
}

// contentParts returns the blocks of a system prompt or message content,
// which is a string (one text block) or an array of blocks. Only the first
// block carries kind, so a message boundary is part of the hash.
func contentParts(kind string, raw json.RawMessage) ([]promptPart, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []promptPart{{kind: kind, canon: marshal(map[string]string{"type": "text", "text": s})}}, nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, errors.New("content is neither a string nor an array of blocks")
	}
	parts := make([]promptPart, 0, len(blocks))
	for i, b := range blocks {
		part, err := canonicalPart(kind, b)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
		parts = append(parts, part)
		kind = ""
	}
	return parts, nil
}

// canonicalPart serialises a JSON object canonically: keys sorted at
// every level, no insignificant space, strings without HTML escapes, no
// top-level cache_control, whose presence makes the part a breakpoint.
// Two encodings of the same content are the same part.
func canonicalPart(kind string, raw json.RawMessage) (promptPart, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return promptPart{}, errors.New("not a JSON object")
	}
	cc, ok := obj["cache_control"]
	bp := ok && cc != nil
	delete(obj, "cache_control")
	return promptPart{kind: kind, canon: marshal(obj), breakpoint: bp}, nil
}

// chain extends a prefix hash by one part.
func chain(prev [32]byte, kind string, canon []byte) [32]byte {
	h := sha256.New()
	h.Write(prev[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(kind)))
	h.Write(n[:])
	h.Write([]byte(kind))
	binary.BigEndian.PutUint64(n[:], uint64(len(canon)))
	h.Write(n[:])
	h.Write(canon)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

type openAIPrompt struct {
	Model    string            `json:"model"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []json.RawMessage `json:"messages"`
}

func (e *CacheEmulator) openAI(body []byte) (providers.Usage, error) {
	var p openAIPrompt
	if err := json.Unmarshal(body, &p); err != nil {
		return providers.Usage{}, err
	}
	prompt, err := joinParts(append(p.Tools, p.Messages...))
	if err != nil {
		return providers.Usage{}, fmt.Errorf("tools and messages%w", err)
	}
	return e.prefixCache("openai\x00"+p.Model, prompt), nil
}

type responsesPrompt struct {
	Model          string            `json:"model"`
	Tools          []json.RawMessage `json:"tools"`
	Instructions   json.RawMessage   `json:"instructions"`
	Input          json.RawMessage   `json:"input"`
	PromptCacheKey string            `json:"prompt_cache_key"`
}

// responses emulates the automatic cache on the Responses wire: the
// prompt is the tools, the instructions, then the input items, and the
// prompt_cache_key joins the model in choosing the cache (OpenAI routes
// requests by it, so two keys share nothing).
func (e *CacheEmulator) responses(body []byte) (providers.Usage, error) {
	var p responsesPrompt
	if err := json.Unmarshal(body, &p); err != nil {
		return providers.Usage{}, err
	}
	parts := slices.Clone(p.Tools)
	if len(p.Instructions) > 0 && string(p.Instructions) != "null" {
		parts = append(parts, marshal(map[string]json.RawMessage{"instructions": p.Instructions}))
	}
	var input []json.RawMessage
	var s string
	switch {
	case len(p.Input) == 0 || string(p.Input) == "null":
	case json.Unmarshal(p.Input, &s) == nil:
		input = append(input, marshal(map[string]string{"role": "user", "content": s}))
	default:
		if err := json.Unmarshal(p.Input, &input); err != nil {
			return providers.Usage{}, fmt.Errorf("input: %w", err)
		}
	}
	prompt, err := joinParts(append(parts, input...))
	if err != nil {
		return providers.Usage{}, fmt.Errorf("tools, instructions and input%w", err)
	}
	return e.prefixCache("responses\x00"+p.Model+"\x00"+p.PromptCacheKey, prompt), nil
}

// joinParts returns the canonical parts one after the other, each ended
// by a newline.
func joinParts(parts []json.RawMessage) ([]byte, error) {
	var prompt []byte
	for i, raw := range parts {
		part, err := canonicalPart("", raw)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		prompt = append(append(prompt, part.canon...), '\n')
	}
	return prompt, nil
}

// prefixCache is OpenAI's automatic caching of a prompt in a cache chosen
// by seed: the longest prefix an earlier request also had, in whole
// OpenAICacheStep-token steps from MinCacheTokens on, is read; every
// prefix of this prompt is remembered.
func (e *CacheEmulator) prefixCache(seed string, prompt []byte) providers.Usage {
	u := providers.Usage{InputTokens: tokensOf(len(prompt))}
	const stepBytes = OpenAICacheStep * BytesPerToken
	h := sha256.Sum256([]byte(seed))
	var fresh [][32]byte
	for k := 1; k*stepBytes <= len(prompt); k++ {
		h = chain(h, "", prompt[(k-1)*stepBytes:k*stepBytes])
		if k*OpenAICacheStep < MinCacheTokens {
			continue
		}
		if e.entries[h] {
			u.CachedInputTokens = k * OpenAICacheStep
		} else {
			fresh = append(fresh, h)
		}
	}
	for _, f := range fresh {
		e.entries[f] = true
	}
	return u
}
