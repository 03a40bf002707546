package server

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// metrics are the server's counters, written in Prometheus's text format
// (version 0.0.4) by hand: a few counters, one histogram and two gauges
// need no client library.
type metrics struct {
	mu          sync.Mutex
	turns       map[string]uint64 // by status
	tokens      map[string]uint64 // by kind
	costUSD     float64
	toolCalls   map[string]uint64 // by tool
	requests    map[int]uint64    // by HTTP status
	turnBuckets []uint64          // counts per turnBounds bucket (not cumulative)
	turnSum     float64
	turnCount   uint64
	approvals   map[string]uint64 // by decision
}

// turnBounds are the upper bounds, in seconds, of the turn latency
// histogram's buckets (+Inf is implied).
func turnBounds() []float64 {
	return []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
}

// maxToolLabels caps the distinct tool names counted: a model may call
// tools that do not exist, and each name would be a series.
const maxToolLabels = 200

func newMetrics() *metrics {
	return &metrics{
		turns: map[string]uint64{}, tokens: map[string]uint64{}, toolCalls: map[string]uint64{},
		requests: map[int]uint64{}, turnBuckets: make([]uint64, len(turnBounds())+1), approvals: map[string]uint64{},
	}
}

// turn counts a finished turn: its status, how long it took, its usage
// and its cost (of the models with a known price).
func (m *metrics) turn(status string, took time.Duration, usage providers.Usage, usd float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns[status]++
	secs := took.Seconds()
	i := sort.SearchFloat64s(turnBounds(), secs)
	m.turnBuckets[i]++
	m.turnSum += secs
	m.turnCount++
	m.tokens["input"] += uint64(max(0, usage.InputTokens))
	m.tokens["output"] += uint64(max(0, usage.OutputTokens))
	m.tokens["cached"] += uint64(max(0, usage.CachedInputTokens))
	m.tokens["cache_write"] += uint64(max(0, usage.CacheWriteTokens))
	if !math.IsNaN(usd) && usd > 0 {
		m.costUSD += usd
	}
}

func (m *metrics) toolCall(tool string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, seen := m.toolCalls[tool]; !seen && len(m.toolCalls) >= maxToolLabels {
		tool = "other"
	}
	m.toolCalls[tool]++
}

func (m *metrics) request(status int) {
	m.mu.Lock()
	m.requests[status]++
	m.mu.Unlock()
}

func (m *metrics) approval(decision string) {
	m.mu.Lock()
	m.approvals[decision]++
	m.mu.Unlock()
}

// write writes every metric; active is the number of sessions open.
func (m *metrics) write(w io.Writer, active int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	family := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	labelled := func(name, label string, values map[string]uint64) {
		for _, k := range sortedKeys(values) {
			fmt.Fprintf(&b, "%s{%s=\"%s\"} %d\n", name, label, escapeLabel(k), values[k])
		}
	}
	family("clawseed_turns_total", "counter", "Turns finished, by status.")
	labelled("clawseed_turns_total", "status", m.turns)
	family("clawseed_tokens_total", "counter", "Tokens of the turns' model requests, by kind (cached and cache_write are parts of input).")
	labelled("clawseed_tokens_total", "kind", m.tokens)
	family("clawseed_cost_usd_total", "counter", "Cost of the turns in US dollars, for the models with a known price.")
	fmt.Fprintf(&b, "clawseed_cost_usd_total %s\n", strconv.FormatFloat(m.costUSD, 'g', -1, 64))
	family("clawseed_tool_calls_total", "counter", "Tool calls the model made, by tool.")
	labelled("clawseed_tool_calls_total", "tool", m.toolCalls)
	family("clawseed_approvals_total", "counter", "Approval requests answered, by decision.")
	labelled("clawseed_approvals_total", "decision", m.approvals)
	family("clawseed_turn_duration_seconds", "histogram", "How long a turn took, from the request to its result.")
	var cum uint64
	bounds := turnBounds()
	for i, bound := range bounds {
		cum += m.turnBuckets[i]
		fmt.Fprintf(&b, "clawseed_turn_duration_seconds_bucket{le=\"%s\"} %d\n", strconv.FormatFloat(bound, 'g', -1, 64), cum)
	}
	cum += m.turnBuckets[len(bounds)]
	fmt.Fprintf(&b, "clawseed_turn_duration_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	fmt.Fprintf(&b, "clawseed_turn_duration_seconds_sum %s\n", strconv.FormatFloat(m.turnSum, 'g', -1, 64))
	fmt.Fprintf(&b, "clawseed_turn_duration_seconds_count %d\n", m.turnCount)
	family("clawseed_active_sessions", "gauge", "Sessions open in this server.")
	fmt.Fprintf(&b, "clawseed_active_sessions %d\n", active)
	family("clawseed_http_requests_total", "counter", "HTTP requests answered, by status code.")
	codes := make([]int, 0, len(m.requests))
	for c := range m.requests {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	for _, c := range codes {
		fmt.Fprintf(&b, "clawseed_http_requests_total{code=\"%d\"} %d\n", c, m.requests[c])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeLabel escapes a label value as the text format wants: backslash,
// double quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
