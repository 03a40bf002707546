package cron

import (
	"testing"
	"time"
)

// FuzzParseSchedule: no schedule string panics, and an accepted one always
// has a next run after any time.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"every 10m", "0 9 * * 1-5", "TZ=UTC @daily", "TZ=UTC", "*/5 * * * *", "every 1d"} {
		f.Add(s)
	}
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSchedule(spec)
		if err != nil {
			return
		}
		if next := s.Next(from); !next.After(from) {
			t.Fatalf("ParseSchedule(%q).Next(%s) = %s, not after it", spec, from, next)
		}
	})
}

// FuzzParseJobs: no jobs file panics the loader, and what it accepts
// passes the job checks.
func FuzzParseJobs(f *testing.F) {
	f.Add([]byte(`{"version":1,"jobs":[{"id":"ab12","name":"n","schedule":"every 10m","kind":"shell","command":"ls","workspace":"/w","enabled":true}]}`))
	f.Add([]byte(`{"version":1,"jobs":[]}`))
	f.Add([]byte("{\n\"version\": 1,\n\"jobs\": [\n{\"id\": 5}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		jf, err := parseJobs("jobs.json", data)
		if err != nil {
			return
		}
		for _, j := range jf.Jobs {
			if _, err := j.check(); err != nil {
				t.Fatalf("accepted job %s fails its check: %v", j.ID, err)
			}
		}
	})
}
