package providers

import "context"

// toolOutputKey is the context key of [WithToolOutput].
type toolOutputKey struct{}

// WithToolOutput returns a context whose tool call reports its output as
// it is produced (a running command's stdout and stderr) to report, for
// the live tail a terminal UI shows. The agent derives it for each call
// (runtime/agent's EventToolOutput), which is why it lives here, below
// both the agent and the tools.
//
// report must be safe for concurrent use and must not block: the tool
// calls it from the goroutines that read the command's pipes. What it gets
// is progress only: the call's result stays the one its model sees.
func WithToolOutput(ctx context.Context, report func(chunk string)) context.Context {
	return context.WithValue(ctx, toolOutputKey{}, report)
}

// ToolOutput returns the function the call running with ctx reports its
// output to as it comes ([WithToolOutput]), or nil when nobody listens.
func ToolOutput(ctx context.Context) func(chunk string) {
	report, _ := ctx.Value(toolOutputKey{}).(func(string))
	return report
}
