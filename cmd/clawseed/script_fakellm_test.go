package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawseed/clawseed/providers/providertest"
)

// The fakellm command of the scripts: what the fake LLM server received,
// rendered for assertions.

func server(ts *testscript.TestScript) *providertest.Server {
	h := ts.Value(fakeKey{}).(*fakeHolder)
	if h.s == nil {
		ts.Fatalf("fakellm: no server; run `fakellm start SCRIPT` first")
	}
	return h.s
}

// cmdFakeLLM drives the fake LLM server. Requests of every wire (OpenAI
// Chat Completions, OpenAI Responses, Anthropic Messages) are read the same way
// (providertest.ReadRequest):
//
//	fakellm start SCRIPT          start it with a JSON Lines script; sets FAKE_LLM_URL
//	fakellm wait N                wait until N requests arrived
//	fakellm count N               exactly N requests arrived
//	fakellm wire N WIRE           request N came on WIRE (openai, responses or anthropic)
//	fakellm system N FILE         write request N's system prompt to FILE (N may be "last";
//	                              Anthropic system blocks, and the Responses instructions and
//	                              system or developer messages, are joined with a blank line)
//	fakellm messages N FILE       write request N's messages as readable lines
//	                              (user:, assistant:, thinking:, call ID NAME ARGS, tool ID:)
//	fakellm tools N FILE          write request N's tool names, one per line
//	fakellm body N FILE           write request N's JSON body, indented
//	fakellm toolsjson N FILE      write each tool of request N as compact JSON, one per line
//	fakellm headers N FILE        write request N's HTTP headers, "Name: value" sorted
//	fakellm prefix N M            request N's system prompt is a strict byte prefix of M's
//	fakellm valid                 every request pairs each tool call with exactly one result
//	                              and, on the Anthropic wire, sends no empty text block, no
//	                              unsigned or altered thinking block, at most 4 cache_control;
//	                              on the Responses wire, echoes reasoning items unaltered
//	fakellm toolsprefix N M       request N's tools array is a strict prefix of M's, tool by
//	                              tool and byte for byte (cache_control markers aside)
//	fakellm toolbytes N MAX       request N's tools array is at most MAX bytes of JSON
//	fakellm same N                from request N on, every conversation request has the
//	                              same system prompt, byte for byte
//	fakellm every N PART REGEXP   from request N on, every conversation request's PART
//	                              (system or messages, as `messages` writes them) matches
//	                              REGEXP; `! fakellm every` means none does
//	fakellm cache MIN [N]         the cache emulator read at least MIN (0.85 or 85%) of the
//	                              input tokens of the answered requests from N (default 1)
//	                              on; `! fakellm cache` means less than MIN
//	fakellm usage FILE            write the emulated usage of every request and the totals
//	fakellm reqprefix N M         request N is a prefix of request M: the same system prompt
//	                              and tools, and N's messages begin M's (wire-neutral)
//
// Compaction summary requests are not conversation requests: `every` skips
// them.
func cmdFakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fakellm start|wait|count|wire|system|messages|tools|body|headers|prefix|reqprefix|valid|same|every|cache|usage ...")
	}
	if neg && args[0] != "prefix" && args[0] != "every" && args[0] != "cache" {
		ts.Fatalf("unsupported: ! fakellm %s", args[0])
	}
	switch args[0] {
	case "start":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm start SCRIPT")
		}
		script, err := providertest.ParseScript([]byte(ts.ReadFile(args[1])))
		ts.Check(err)
		h := ts.Value(fakeKey{}).(*fakeHolder)
		if h.s != nil {
			ts.Fatalf("fakellm: already started")
		}
		h.s = providertest.NewServer(script)
		ts.Setenv("FAKE_LLM_URL", h.s.URL())
	case "wait":
		n := atoi(ts, args, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ts.Check(server(ts).WaitRequests(ctx, n))
	case "count":
		n := atoi(ts, args, 1)
		if got := len(server(ts).Requests()); got != n {
			ts.Fatalf("fakellm: %d requests, want %d", got, n)
		}
	case "wire":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm wire N openai|responses|anthropic")
		}
		if got := request(ts, reqNum(ts, args[1])).Wire; string(got) != args[2] {
			ts.Fatalf("fakellm wire: request %s came on the %s wire, want %s", args[1], got, args[2])
		}
	case "system", "messages", "tools", "toolsjson", "body", "headers":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm %s N FILE", args[0])
		}
		out := render(ts, args[0], request(ts, reqNum(ts, args[1])))
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(out), 0o644))
	case "prefix":
		a, b := systemPrompt(ts, request(ts, atoi(ts, args, 1))), systemPrompt(ts, request(ts, atoi(ts, args, 2)))
		ok := len(a) < len(b) && strings.HasPrefix(b, a)
		if ok == neg {
			ts.Fatalf("fakellm prefix: system prompt %s is a strict prefix of %s: %v", args[1], args[2], ok)
		}
	case "toolsprefix":
		a, b := rawTools(ts, request(ts, atoi(ts, args, 1))), rawTools(ts, request(ts, atoi(ts, args, 2)))
		ok := len(a) < len(b)
		for i := 0; ok && i < len(a); i++ {
			ok = a[i] == b[i]
		}
		if ok == neg {
			ts.Fatalf("fakellm toolsprefix: tools of request %s are a strict prefix of request %s's: %v", args[1], args[2], ok)
		}
	case "toolbytes":
		n := 0
		for _, t := range rawTools(ts, request(ts, atoi(ts, args, 1))) {
			n += len(t) + 1
		}
		ok := n <= atoi(ts, args, 2)
		if ok == neg {
			ts.Fatalf("fakellm toolbytes: request %s's tools array is %d bytes (at most %s: %v)", args[1], n, args[2], ok)
		}
	case "same":
		var first string
		for i, rec := range conversation(ts, atoi(ts, args, 1)) {
			sys := systemPrompt(ts, rec)
			if i == 0 {
				first = sys
			} else if sys != first {
				ts.Fatalf("fakellm same: conversation request %d from %s has another system prompt", i+1, args[1])
			}
		}
	case "valid":
		for i, rec := range server(ts).Recorded() {
			if err := view(ts, rec).Check(); err != nil {
				ts.Fatalf("fakellm valid: request %d (%s): %v", i+1, rec.Wire, err)
			}
		}
	case "every":
		if len(args) != 4 || (args[2] != "system" && args[2] != "messages") {
			ts.Fatalf("usage: fakellm every N system|messages REGEXP")
		}
		re, err := regexp.Compile(args[3])
		ts.Check(err)
		for i, rec := range conversation(ts, atoi(ts, args, 1)) {
			text := systemPrompt(ts, rec)
			if args[2] == "messages" {
				text = view(ts, rec).Transcript()
			}
			if re.MatchString(text) == neg {
				ts.Fatalf("fakellm every: conversation request %d from %s: %s match %v for %q", i+1, args[1], args[2], !neg, args[3])
			}
		}
	case "cache":
		cmdCache(ts, neg, args[1:])
	case "reqprefix":
		a, b := request(ts, atoi(ts, args, 1)), request(ts, atoi(ts, args, 2))
		if systemPrompt(ts, a) != systemPrompt(ts, b) {
			ts.Fatalf("fakellm reqprefix: requests %s and %s have other system prompts", args[1], args[2])
		}
		if !slices.Equal(rawTools(ts, a), rawTools(ts, b)) {
			ts.Fatalf("fakellm reqprefix: requests %s and %s have other tools", args[1], args[2])
		}
		if ta, tb := view(ts, a).Transcript(), view(ts, b).Transcript(); !strings.HasPrefix(tb, ta) {
			ts.Fatalf("fakellm reqprefix: the messages of request %s do not begin those of request %s", args[1], args[2])
		}
	case "usage":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm usage FILE")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(usageReport(server(ts).Recorded())), 0o644))
	default:
		ts.Fatalf("fakellm: unknown subcommand %q", args[0])
	}
}

// render writes what `fakellm system|messages|tools|body|headers` show.
func render(ts *testscript.TestScript, what string, rec providertest.Recorded) string {
	switch what {
	case "system":
		return systemPrompt(ts, rec)
	case "messages":
		return view(ts, rec).Transcript()
	case "tools":
		return toolNames(ts, rec)
	case "toolsjson":
		return strings.Join(rawTools(ts, rec), "\n") + "\n"
	case "headers":
		var lines []string
		for name, values := range rec.Header {
			for _, v := range values {
				lines = append(lines, name+": "+v)
			}
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n") + "\n"
	}
	var buf bytes.Buffer
	ts.Check(json.Indent(&buf, rec.Body, "", "  "))
	return buf.String() + "\n"
}

// cmdCache checks the emulated cache hit ratio: `fakellm cache MIN [FROM]`.
func cmdCache(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: fakellm cache MIN [FROM]")
	}
	floor, err := parseRatio(args[0])
	ts.Check(err)
	from := 1
	if len(args) == 2 {
		from = atoi(ts, args, 1)
	}
	recs := server(ts).Recorded()
	if from < 1 || from > len(recs) {
		ts.Fatalf("fakellm cache: request %d of %d", from, len(recs))
	}
	var stats providertest.CacheStats
	for _, rec := range recs[from-1:] {
		if rec.Usage != nil {
			stats.Add(*rec.Usage)
		}
	}
	ratio := stats.HitRatio()
	ts.Logf("fakellm cache: %d of %d input tokens read from the cache (%.3f) over %d requests from %d",
		stats.CachedTokens, stats.InputTokens, ratio, stats.Requests, from)
	if (ratio >= floor) == neg {
		want := "at least"
		if neg {
			want = "less than"
		}
		ts.Fatalf("fakellm cache: hit ratio %.3f (%d of %d input tokens), want %s %s",
			ratio, stats.CachedTokens, stats.InputTokens, want, args[0])
	}
}

// parseRatio reads "0.85" or "85%".
func parseRatio(s string) (float64, error) {
	pct, isPct := strings.CutSuffix(s, "%")
	f, err := strconv.ParseFloat(pct, 64)
	if err != nil {
		return 0, fmt.Errorf("fakellm cache: ratio %q: want a fraction (0.85) or a percentage (85%%)", s)
	}
	if isPct {
		f /= 100
	}
	return f, nil
}

// usageReport lists each request's emulated usage and the totals.
func usageReport(recs []providertest.Recorded) string {
	var b strings.Builder
	var stats providertest.CacheStats
	for i, rec := range recs {
		if rec.Usage == nil {
			fmt.Fprintf(&b, "%d %s unanswered\n", i+1, rec.Wire)
			continue
		}
		u := *rec.Usage
		stats.Add(u)
		fmt.Fprintf(&b, "%d %s input=%d cached=%d cache_write=%d output=%d\n",
			i+1, rec.Wire, u.InputTokens, u.CachedInputTokens, u.CacheWriteTokens, u.OutputTokens)
	}
	fmt.Fprintf(&b, "total requests=%d input=%d cached=%d cache_write=%d output=%d hit_ratio=%.3f\n",
		stats.Requests, stats.InputTokens, stats.CachedTokens, stats.CacheWriteTokens, stats.OutputTokens, stats.HitRatio())
	return b.String()
}

// conversation returns the requests from the 1-based request from on,
// without compaction summary requests; at least one, or the script fails.
func conversation(ts *testscript.TestScript, from int) []providertest.Recorded {
	recs := server(ts).Recorded()
	if from < 1 || from > len(recs) {
		ts.Fatalf("fakellm: request %d of %d", from, len(recs))
	}
	var out []providertest.Recorded
	for _, rec := range recs[from-1:] {
		if !isSummaryRequest(ts, rec) {
			out = append(out, rec)
		}
	}
	if len(out) == 0 {
		ts.Fatalf("fakellm: no conversation request from %d on", from)
	}
	return out
}

// reqNum parses a request number; "last" is the latest request.
func reqNum(ts *testscript.TestScript, arg string) int {
	if arg == "last" {
		return len(server(ts).Requests())
	}
	n, err := strconv.Atoi(arg)
	ts.Check(err)
	return n
}

// summarySystemPrefix starts the system prompt of compaction summary
// requests sent as a transcript (runtime/agent's compactionSystem);
// summaryInPlaceMark starts the last user message of those asked at the end
// of the conversation itself (compactionInPlace).
const (
	summarySystemPrefix = "You summarise a conversation"
	summaryInPlaceMark  = "<compaction_request>"
	// sessionSummaryPrefix starts the system prompt of a session summary
	// update (issue 24), a side request too.
	sessionSummaryPrefix = "You keep the running summary"
)

// isSummaryRequest tells compaction summary requests from the
// conversation's.
func isSummaryRequest(ts *testscript.TestScript, rec providertest.Recorded) bool {
	if sys := systemPrompt(ts, rec); strings.HasPrefix(sys, summarySystemPrefix) || strings.HasPrefix(sys, sessionSummaryPrefix) {
		return true
	}
	lines := strings.Split(strings.TrimRight(view(ts, rec).Transcript(), "\n"), "\n")
	return strings.Contains(lines[len(lines)-1], summaryInPlaceMark)
}

func atoi(ts *testscript.TestScript, args []string, i int) int {
	if i >= len(args) {
		ts.Fatalf("missing number argument")
	}
	n, err := strconv.Atoi(args[i])
	ts.Check(err)
	return n
}

// request returns the 1-based request n.
func request(ts *testscript.TestScript, n int) providertest.Recorded {
	recs := server(ts).Recorded()
	if n < 1 || n > len(recs) {
		ts.Fatalf("fakellm: request %d of %d", n, len(recs))
	}
	return recs[n-1]
}

func view(ts *testscript.TestScript, rec providertest.Recorded) *providertest.RequestView {
	v, err := providertest.ReadRequest(rec.Wire, rec.Body)
	ts.Check(err)
	return v
}

func systemPrompt(ts *testscript.TestScript, rec providertest.Recorded) string {
	v := view(ts, rec)
	if !v.HasSystem {
		ts.Fatalf("fakellm: request has no system prompt")
	}
	return v.System
}

func toolNames(ts *testscript.TestScript, rec providertest.Recorded) string {
	names := view(ts, rec).Tools
	// Sorted, then the deferred tools that joined (found, called, needed
	// by a skill), in that order: only when tool_search is offered, each
	// once.
	sorted := len(names)
	for i := 1; i < len(names); i++ {
		if names[i] < names[i-1] {
			sorted = i
			break
		}
	}
	for i, n := range names[sorted:] {
		if !slices.Contains(names[:sorted], "tool_search") || slices.Contains(names[:sorted+i], n) {
			ts.Fatalf("fakellm: tools are not sorted (only deferred tools that joined may follow the sorted list, with tool_search in it): %v", names)
		}
	}
	return strings.Join(names, "\n") + "\n"
}
