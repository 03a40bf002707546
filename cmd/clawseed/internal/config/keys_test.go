package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRetryWaitAndEnvPassthrough: [providers].max_retry_wait_secs and
// [autonomy].env_passthrough decode, layer, expand ${VAR} and show like
// every other key.
func TestRetryWaitAndEnvPassthrough(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	d := Default()
	if d.Providers.MaxRetryWaitSecs != 120 || d.Autonomy.EnvPassthrough == nil || len(d.Autonomy.EnvPassthrough) != 0 {
		t.Errorf("defaults: max_retry_wait_secs %d, env_passthrough %#v", d.Providers.MaxRetryWaitSecs, d.Autonomy.EnvPassthrough)
	}

	writeFile(t, s.userFile(), "[providers]\nmax_retry_wait_secs = 30\n[autonomy]\nenv_passthrough = [\"OLD\"]\n")
	project := writeFile(t, s.projectFile(), "[autonomy]\nenv_passthrough = [\"GH_TOKEN\", \"NPM_*\", \"${EXTRA:-X}_KEY\"]\n")
	c := mustLoad(t, s.opts(env{"EXTRA": "MY"}))
	if c.Providers.MaxRetryWaitSecs != 30 || c.Providers.MaxRetryWait() != 30*time.Second {
		t.Errorf("max_retry_wait_secs = %d (%v), want 30", c.Providers.MaxRetryWaitSecs, c.Providers.MaxRetryWait())
	}
	if diff := cmp.Diff([]string{"GH_TOKEN", "NPM_*", "MY_KEY"}, c.Autonomy.EnvPassthrough); diff != "" {
		t.Errorf("env_passthrough (-want +got)\n%s", diff)
	}
	if got := c.Source("autonomy.env_passthrough"); got != project+":2" {
		t.Errorf("source %q, want %s:2", got, project)
	}
	var out strings.Builder
	if err := c.Show(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nmax_retry_wait_secs = 30  # from " + s.userFile() + ":2\n",
		"\nenv_passthrough = [\"GH_TOKEN\", \"NPM_*\", \"MY_KEY\"]  # from " + project + ":2\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Show lacks %q", want)
		}
	}
}
