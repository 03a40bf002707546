package cron

import (
	"strings"
	"testing"
	"time"
)

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	base := time.Date(2025, 3, 10, 12, 3, 27, 0, time.UTC) // a Monday
	for _, tt := range []struct {
		spec string
		from time.Time
		want time.Time
	}{
		{"every 10m", base, time.Date(2025, 3, 10, 12, 13, 0, 0, time.UTC)},
		{"every 2h", base, time.Date(2025, 3, 10, 14, 3, 0, 0, time.UTC)},
		{"every 1h30m", base, time.Date(2025, 3, 10, 13, 33, 0, 0, time.UTC)},
		{"Every 1d", base, time.Date(2025, 3, 11, 12, 3, 0, 0, time.UTC)},
		{"@every 5m", base, time.Date(2025, 3, 10, 12, 8, 0, 0, time.UTC)},
		{"every 1m", base, time.Date(2025, 3, 10, 12, 4, 0, 0, time.UTC)},
		{"TZ=UTC 0 9 * * *", base, time.Date(2025, 3, 11, 9, 0, 0, 0, time.UTC)},
		{"CRON_TZ=UTC 0 9 * * 1-5", time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC), time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)},
		{"TZ=UTC */15 * * * *", base, time.Date(2025, 3, 10, 12, 15, 0, 0, time.UTC)},
		{"TZ=UTC @daily", base, time.Date(2025, 3, 11, 0, 0, 0, 0, time.UTC)},
		{"TZ=UTC @hourly", base, time.Date(2025, 3, 10, 13, 0, 0, 0, time.UTC)},
		{"TZ=America/New_York 0 9 * * *", base, time.Date(2025, 3, 10, 13, 0, 0, 0, time.UTC)},
	} {
		s, err := ParseSchedule(tt.spec)
		if err != nil {
			t.Errorf("ParseSchedule(%q): %v", tt.spec, err)
			continue
		}
		if got := s.Next(tt.from); !got.Equal(tt.want) {
			t.Errorf("ParseSchedule(%q).Next(%s) = %s, want %s", tt.spec, tt.from, got, tt.want)
		}
	}
}

func TestParseScheduleLocal(t *testing.T) {
	t.Parallel()
	// Without TZ= the fields are local time.
	s, err := ParseSchedule("30 6 * * *")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2025, 3, 10, 12, 0, 0, 0, time.Local)
	if got, want := s.Next(from), time.Date(2025, 3, 11, 6, 30, 0, 0, time.Local); !got.Equal(want) {
		t.Errorf("Next = %s, want %s", got, want)
	}
}

func TestParseScheduleErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ spec, want string }{
		{"", "schedule is empty"},
		{"   ", "schedule is empty"},
		{"* * * *", `has 4 fields; cron syntax has five`},
		{"0 0 * * * *", `has 6 fields`},
		{"daily", `has 1 fields`},
		{"61 * * * *", `schedule "61 * * * *": `},
		{"0 0 30 2 *", "never fires"},
		{"every", "missing interval"},
		{"every x", `every x: not an interval`},
		{"every 30s", "at least 1m"},
		{"every 90s", "whole minutes"},
		{"every -5m", "at least 1m"},
		{"every 400d", "not a number of days"},
		{"every 9000h", "at most 366d"},
		{"TZ=Nowhere/Land 0 * * * *", `unknown time zone "Nowhere/Land"`},
		{"TZ=../../etc/passwd 0 * * * *", "unknown time zone"},
		{"TZ=UTC", "nothing follows TZ=UTC"},
		{"TZ= 0 * * * *", "unknown time zone"},
		{"TZ=UTC @every 5m", `write "every 10m"`},
		{"@fortnightly", "unrecognized descriptor"},
		{strings.Repeat("*", 300), "longer than 200"},
	} {
		_, err := ParseSchedule(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSchedule(%q) = %v, want an error containing %q", tt.spec, err, tt.want)
		}
	}
}
