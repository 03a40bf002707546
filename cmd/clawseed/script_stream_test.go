package main

import (
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"
)

// streamVolatile are the parts of a `run --output stream-json` line that
// change from run to run or from wire to wire, with what they become, so a
// script can cmp a whole stream against a golden file (-update rewrites
// it): random ids, the session id and folder, times, and what the
// wires' configurations differ in (the provider and where its key came
// from).
var streamVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"uuid":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"`), `"uuid":"UUID"`},
	{regexp.MustCompile(`"id":"msg_[0-9a-f]{32}"`), `"id":"msg_ID"`},
	{regexp.MustCompile(`"session_id":"\d{8}-\d{6}-[0-9a-f]{6}"`), `"session_id":"SESSION"`},
	{regexp.MustCompile(`"(duration_ms|duration_api_ms)":\d+`), `"$1":0`},
	{regexp.MustCompile(`"cwd":"[^"]*"`), `"cwd":"WORK"`},
	{regexp.MustCompile(`"provider":"(openai-compatible|openai|anthropic)"`), `"provider":"PROVIDER"`},
	{regexp.MustCompile(`"apiKeySource":"(none|config)"`), `"apiKeySource":"KEY"`},
}

// cmdStreamNorm prints a file of stream-json lines with [streamVolatile]
// replaced: `streamnorm stdout` then `cmp stdout want.jsonl`.
func cmdStreamNorm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: streamnorm FILE")
	}
	out := []byte(ts.ReadFile(args[0]))
	for _, v := range streamVolatile {
		out = v.re.ReplaceAll(out, []byte(v.with))
	}
	if _, err := ts.Stdout().Write(out); err != nil {
		ts.Fatalf("%v", err)
	}
}
