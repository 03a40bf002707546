package permissions

import (
	"context"
	"slices"
)

// approvedWritesKey is the context key of [WithApprovedWrites].
type approvedWritesKey struct{}

// WithApprovedWrites returns a context that lets the one tool call run
// with it write the control paths named (as the control-path rule names
// them: ".clawseed/", "AGENTS.md"): the call was asked about them, with
// the content shown, and approved. The agent derives it for that call
// only. The writer checks again where the bytes land, when it writes,
// and refuses a control path not named here: a link swapped in between
// the approval and the write cannot lead an unasked write into one.
func WithApprovedWrites(ctx context.Context, controls []string) context.Context {
	return context.WithValue(ctx, approvedWritesKey{}, slices.Clone(controls))
}

// WriteApproved reports whether ctx comes from [WithApprovedWrites] with
// the control path control among those approved.
func WriteApproved(ctx context.Context, control string) bool {
	controls, _ := ctx.Value(approvedWritesKey{}).([]string)
	return slices.Contains(controls, control)
}
