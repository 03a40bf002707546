package providers_test

import (
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// TestClassifyStatus: only the statuses that say "not now" are retried
// (issue 20, item 25: a 501 was retried three times).
func TestClassifyStatus(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		want   providers.ErrorKind
	}{
		{200, providers.KindUnknown},
		{400, providers.KindBadRequest},
		{401, providers.KindAuth},
		{403, providers.KindAuth},
		{404, providers.KindNotFound},
		{405, providers.KindBadRequest},
		{408, providers.KindTransient},
		{409, providers.KindTransient},
		{413, providers.KindContextLength},
		{422, providers.KindBadRequest},
		{425, providers.KindTransient},
		{429, providers.KindRateLimited},
		{451, providers.KindBadRequest},
		{500, providers.KindTransient},
		{501, providers.KindBadRequest},
		{502, providers.KindTransient},
		{503, providers.KindTransient},
		{504, providers.KindTransient},
		{505, providers.KindBadRequest},
		{511, providers.KindAuth},
		{529, providers.KindTransient},
	} {
		got := providers.ClassifyStatus(tt.status)
		if got != tt.want {
			t.Errorf("ClassifyStatus(%d) = %v, want %v", tt.status, got, tt.want)
		}
		if retry := got.Retryable(); retry != (tt.want == providers.KindTransient || tt.want == providers.KindRateLimited) {
			t.Errorf("status %d: retryable %v", tt.status, retry)
		}
	}
}
