package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// TestSkillPermissions: the check made before the agent meets no
// permission until New connects it; then a permission is met by a tool of
// the tools array or by one the tool source has beyond it (a deferred
// tool), and not by a tool the policy hides.
func TestSkillPermissions(t *testing.T) {
	t.Parallel()
	perms := &SkillPermissions{}
	if got := perms.Check("s", []string{"file_read"}); got == "" {
		t.Fatal("a permission met before the agent was built")
	}
	src := &fakeSource{set: ToolSet{Version: 1, Deferred: []Tool{echoTool("mcp__srv__deferred", permissions.ClassNetwork)}}}
	newEnv(t, nil, func(o *Options) {
		o.SkillPermissions = perms
		o.ToolSource = src
		o.Policy = permissions.Policy{Level: permissions.Full, Denied: []string{"shell"}}
	})
	for _, tc := range []struct {
		perm string
		met  bool
	}{
		{"file_read", true},
		{"mcp__srv__deferred", true},
		{"shell_exec", false}, // shell is denied
		{"mcp__srv__other", false},
	} {
		got := perms.Check("s", []string{tc.perm})
		if (got == "") != tc.met {
			t.Errorf("%s: Check = %q, want met %v", tc.perm, got, tc.met)
		}
	}
}

// TestUsageSink: a tool's own requests count in the session, and in its
// session file, once New connected the sink the tools were built with;
// before that they are dropped.
func TestUsageSink(t *testing.T) {
	t.Parallel()
	sink := &UsageSink{}
	u := providers.Usage{InputTokens: 7, OutputTokens: 3}
	sink.Add("early", u)
	rec := &memRecorder{}
	env := newEnv(t, nil, func(o *Options) {
		o.Usage = sink
		o.Recorder = rec
	})
	sink.Add("task-model", u)
	sink.Add("task-model", u)
	want := []providers.ModelUsage{{Model: "task-model", Usage: providers.Usage{InputTokens: 14, OutputTokens: 6}}}
	if diff := cmp.Diff(want, env.agent.UsageByModel()); diff != "" {
		t.Errorf("UsageByModel (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(want, rec.usage); diff != "" {
		t.Errorf("recorded usage (-want +got)\n%s", diff)
	}
	env.agent.Reset(context.Background())
	if got := env.agent.UsageByModel(); len(got) != 0 {
		t.Errorf("after Reset: %+v", got)
	}
}
