package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixedClock returns the times given, one per call, the last one for
// ever after.
func fixedClock(times ...time.Time) func() time.Time {
	i := 0
	return func() time.Time {
		t := times[min(i, len(times)-1)]
		i++
		return t
	}
}

func logStore(t *testing.T, now func() time.Time) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Dir: t.TempDir(), Workspace: "/home/u/src/proj", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func readLog(t *testing.T, s *Store, day string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.LogsDir(), day+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAppendLog: each note is a "- HH:MM note" line under the day's
// title, in the clock's time zone; white space and line breaks fold into
// one line; the lines already there stay byte for byte.
func TestAppendLog(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	s := logStore(t, fixedClock(
		time.Date(2025, 1, 31, 9, 5, 59, 0, berlin),
		time.Date(2025, 1, 31, 9, 6, 0, 0, berlin),
		time.Date(2025, 1, 31, 22, 30, 0, 0, time.UTC), // written as the clock's zone says
	))
	ctx := context.Background()
	for _, note := range []string{"User prefers tabs.", "  The CI\n dashboard\tis  https://ci.example.com  ", "Late note."} {
		if _, err := s.AppendLog(ctx, note); err != nil {
			t.Fatal(err)
		}
	}
	want := "# 2025-01-31\n\n- 09:05 User prefers tabs.\n- 09:06 The CI dashboard is https://ci.example.com\n- 22:30 Late note.\n"
	if got := readLog(t, s, "2025-01-31"); got != want {
		t.Errorf("log:\n%q\nwant\n%q", got, want)
	}
}

// TestAppendLogRollover: the day is taken at each append, so a session
// that runs past midnight starts the next day's log; the local day counts,
// not UTC's.
func TestAppendLogRollover(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	s := logStore(t, fixedClock(
		time.Date(2025, 1, 31, 23, 59, 0, 0, tokyo),
		time.Date(2025, 2, 1, 0, 1, 0, 0, tokyo), // 2025-01-31T15:01Z: the 1st in Tokyo
	))
	ctx := context.Background()
	e1, err := s.AppendLog(ctx, "before midnight")
	if err != nil {
		t.Fatal(err)
	}
	e2, err := s.AppendLog(ctx, "after midnight")
	if err != nil {
		t.Fatal(err)
	}
	if e1.Day != "2025-01-31" || e2.Day != "2025-02-01" || e2.Line != "- 00:01 after midnight" {
		t.Fatalf("entries %+v, %+v", e1, e2)
	}
	if got := readLog(t, s, "2025-01-31"); got != "# 2025-01-31\n\n- 23:59 before midnight\n" {
		t.Errorf("first day: %q", got)
	}
	if got := readLog(t, s, "2025-02-01"); got != "# 2025-02-01\n\n- 00:01 after midnight\n" {
		t.Errorf("second day: %q", got)
	}
}

// TestAppendLogRefusals: an empty, overlong or control-character note is
// refused and writes nothing; a hand edit without a final newline gets one
// before the next line.
func TestAppendLogRefusals(t *testing.T) {
	day := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ name, note, want string }{
		{"empty", " \n\t ", "empty"},
		{"too long", strings.Repeat("é", MaxLogEntry+1), "longer than 1000"},
		{"escape", "red \x1b[31m text", "control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := logStore(t, fixedClock(day))
			_, err := s.AppendLog(context.Background(), tc.note)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalid with %q", err, tc.want)
			}
			if _, err := os.Stat(s.LogsDir()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused note created %s", s.LogsDir())
			}
		})
	}
	t.Run("hand edit", func(t *testing.T) {
		s := logStore(t, fixedClock(day))
		os.MkdirAll(s.LogsDir(), 0o755)
		os.WriteFile(filepath.Join(s.LogsDir(), "2025-03-01.md"), []byte("# 2025-03-01\n\n- 07:00 by hand"), 0o644)
		if _, err := s.AppendLog(context.Background(), "next"); err != nil {
			t.Fatal(err)
		}
		if got := readLog(t, s, "2025-03-01"); got != "# 2025-03-01\n\n- 07:00 by hand\n- 08:00 next\n" {
			t.Errorf("log: %q", got)
		}
	})
}
