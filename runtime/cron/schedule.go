package cron

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"
)

// Limits of a schedule.
const (
	// minEvery is the shortest "every" interval: the scheduler looks once
	// every 30 s, and a system crontab once a minute.
	minEvery = time.Minute
	// maxEvery keeps an interval's arithmetic far from overflow.
	maxEvery = 366 * 24 * time.Hour
	// maxScheduleLen bounds what the parser is given.
	maxScheduleLen = 200
)

// A Schedule says when a job runs next.
type Schedule interface {
	// Next returns the first activation strictly after t.
	Next(t time.Time) time.Time
}

// every is the "every 10m" form: a fixed interval counted in whole minutes
// from the minute the previous run started, so that a job started a few
// seconds into a minute is due again at the same minute mark, when a
// once-a-minute crontab entry looks.
type every struct{ d time.Duration }

func (e every) Next(t time.Time) time.Time { return t.Truncate(time.Minute).Add(e.d) }

// cronParser accepts the standard five fields and the @daily-style
// descriptors (not @every, which is handled as "every").
var cronParser = robfig.NewParser(robfig.Minute | robfig.Hour | robfig.Dom | robfig.Month | robfig.Dow | robfig.Descriptor)

// ParseSchedule parses a job's schedule: five cron fields ("0 9 * * 1-5",
// optionally after "TZ=Area/City"), a descriptor (@hourly, @daily, @weekly,
// @monthly, @yearly), or "every N" with N a duration in whole minutes
// ("every 10m", "every 2h", "every 1h30m", "every 1d"). Times are local
// unless TZ= says otherwise.
func ParseSchedule(spec string) (sched Schedule, err error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "":
		return nil, errors.New("schedule is empty; use five cron fields (\"0 9 * * 1-5\") or \"every 10m\"")
	case len(spec) > maxScheduleLen:
		return nil, fmt.Errorf("schedule is longer than %d characters", maxScheduleLen)
	}
	if rest, ok := cutEvery(spec); ok {
		return parseEvery(rest)
	}
	loc := time.Local
	if first, rest, _ := strings.Cut(spec, " "); strings.HasPrefix(first, "TZ=") || strings.HasPrefix(first, "CRON_TZ=") {
		_, name, _ := strings.Cut(first, "=")
		if loc, err = time.LoadLocation(name); err != nil || name == "" {
			return nil, fmt.Errorf("schedule %q: unknown time zone %q", spec, name)
		}
		spec = strings.TrimSpace(rest)
		if spec == "" {
			return nil, fmt.Errorf("schedule: nothing follows %s", first)
		}
	}
	if strings.HasPrefix(spec, "@every") {
		return nil, fmt.Errorf("schedule %q: write \"every 10m\" (without @), and without TZ=", spec)
	}
	if !strings.HasPrefix(spec, "@") {
		if n := len(strings.Fields(spec)); n != 5 {
			return nil, fmt.Errorf("schedule %q has %d fields; cron syntax has five (minute hour day-of-month month day-of-week), e.g. \"0 9 * * 1-5\"; or use \"every 10m\"", spec, n)
		}
	}
	s, err := parseCron(spec)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %v", spec, err)
	}
	if sp, ok := s.(*robfig.SpecSchedule); ok {
		sp.Location = loc
	}
	// A date that never comes (February 30th) would never run; the
	// library reports that as a zero time.
	if s.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("schedule %q never fires (no such date)", spec)
	}
	return s, nil
}

// parseCron calls the library parser, turning a panic on odd input into
// an error.
func parseCron(spec string) (s robfig.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("cannot parse: %v", r)
		}
	}()
	return cronParser.Parse(spec)
}

// cutEvery strips a leading "every " (or "@every "), case-insensitively.
func cutEvery(spec string) (string, bool) {
	lower := strings.ToLower(spec)
	for _, p := range []string{"every ", "@every "} {
		if strings.HasPrefix(lower, p) {
			return strings.TrimSpace(spec[len(p):]), true
		}
	}
	return "", lower == "every" || lower == "@every"
}

// parseEvery parses the interval of "every N".
func parseEvery(s string) (Schedule, error) {
	d, err := parseInterval(s)
	if err != nil {
		return nil, err
	}
	switch {
	case d < minEvery:
		return nil, fmt.Errorf("every %s: the interval must be at least 1m", s)
	case d > maxEvery:
		return nil, fmt.Errorf("every %s: the interval must be at most 366d", s)
	case d%time.Minute != 0:
		return nil, fmt.Errorf("every %s: use whole minutes (90m, not 90s)", s)
	}
	return every{d}, nil
}

// parseInterval parses a Go duration ("10m", "1h30m") or a number of days
// ("2d").
func parseInterval(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New(`every: missing interval; write e.g. "every 10m", "every 2h" or "every 1d"`)
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 366 {
			return 0, fmt.Errorf("every %s: not a number of days (1d to 366d)", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("every %s: not an interval; write e.g. \"every 10m\", \"every 2h\" or \"every 1d\"", s)
	}
	return d, nil
}
