package app

import (
	"slices"
	"testing"
)

// A job's process gets the environment of the process that starts it,
// without what would trust the job's workspace from outside the trust
// store, and with the starter's CLAWSEED_HOME made absolute (issue 20,
// item 11).
func TestJobEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		environ []string
		want    []string
	}{
		{"nothing to remove", []string{"PATH=/bin", "HOME=/h"}, []string{"PATH=/bin", "HOME=/h", "CLAWSEED_HOME=/abs/home"}},
		{"trust variable", []string{"CLAWSEED_TRUST_WORKSPACE=1", "PATH=/bin"}, []string{"PATH=/bin", "CLAWSEED_HOME=/abs/home"}},
		{"trust variable, other case", []string{"clawseed_trust_workspace=1"}, []string{"CLAWSEED_HOME=/abs/home"}},
		{"relative home", []string{"CLAWSEED_HOME=rel/home", "X=CLAWSEED_HOME=y"}, []string{"X=CLAWSEED_HOME=y", "CLAWSEED_HOME=/abs/home"}},
		{"other clawseed variables stay", []string{"CLAWSEED_MODEL=m", "CLAWSEED_TRUST_WORKSPACE_X=1"}, []string{"CLAWSEED_MODEL=m", "CLAWSEED_TRUST_WORKSPACE_X=1", "CLAWSEED_HOME=/abs/home"}},
	} {
		if got := jobEnv(tc.environ, "/abs/home"); !slices.Equal(got, tc.want) {
			t.Errorf("%s: jobEnv = %q, want %q", tc.name, got, tc.want)
		}
	}
}
