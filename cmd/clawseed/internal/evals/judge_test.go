package evals

import (
	"context"
	"strings"
	"testing"
)

// TestRunnerJudge: --judge-model is resolved as /model resolves a name,
// and the judge's request names the model it resolved to.
func TestRunnerJudge(t *testing.T) {
	tests := []struct {
		name, judge string
		model       string // the model the request names
		err         string
	}{
		{"the session's model", "", "fake-model", ""},
		{"a [providers.models] entry", "fake", "fake-model", ""},
		{"a model id of the default provider", "judge-model-2", "judge-model-2", ""},
		{"a Claude alias off the Anthropic wire", "sonnet", "", "does not speak Anthropic's API"},
		{"neither a name nor a model id", "fkae", "", "unknown model name \"fkae\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, srv, _ := newTestRunner(t, `{"text":"{\"verdict\":\"PASS\"}","usage":{"input_tokens":10,"output_tokens":3}}`+"\n", "")
			j, model, err := r.Judge(tt.judge)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || model != tt.model {
				t.Fatalf("Judge(%q) = %q, %v", tt.judge, model, err)
			}
			ans, err := j.Ask(context.Background(), "SYS", "the rubric")
			if err != nil || ans.Usage.InputTokens != 10 {
				t.Fatalf("Ask = %+v, %v", ans, err)
			}
			if body := string(srv.Requests()[0]); !strings.Contains(body, `"model":"`+tt.model+`"`) {
				t.Errorf("request body %s", body)
			}
		})
	}
}
