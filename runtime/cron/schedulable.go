package cron

import (
	"fmt"
	"strings"
)

// A schedulable is a clawseed command a job may run, with the flags it
// may be given (name → whether it takes a value).
type schedulable struct {
	path  []string
	flags map[string]bool
}

// schedulableCommands are the clawseed commands a job may run: work on
// the user's own state that needs nobody at the keyboard. A job runs with
// its workspace's configuration and trust (a child process, see
// cmd/clawseed's app.NewJobRunner), so no global flag (--config, --trust, --autonomy,
// --no-sandbox, …) may be given: each command's own flags only.
func schedulableCommands() []schedulable {
	return []schedulable{
		{path: []string{"memory", "distill"}, flags: map[string]bool{"since": true, "dry-run": false}},
		{path: []string{"memory", "reindex"}, flags: map[string]bool{}},
	}
}

// SchedulableList names the schedulable commands for help and errors.
func SchedulableList() string {
	var names []string
	for _, s := range schedulableCommands() {
		names = append(names, "`"+strings.Join(s.path, " ")+"`")
	}
	return strings.Join(names, ", ")
}

// CheckSchedulable reports whether args is a command line a job may run:
// `cron add` and the cron_add tool check it before the job is stored, and
// the job's process
// again before it runs it (jobs.json is a file one can edit).
func CheckSchedulable(args []string) error {
	for _, s := range schedulableCommands() {
		if len(args) < len(s.path) || strings.Join(args[:len(s.path)], " ") != strings.Join(s.path, " ") {
			continue
		}
		rest := args[len(s.path):]
		for i := 0; i < len(rest); i++ {
			name, value, hasValue := strings.Cut(strings.TrimPrefix(rest[i], "--"), "=")
			takes, ok := s.flags[name]
			switch {
			case !strings.HasPrefix(rest[i], "--") || !ok:
				return fmt.Errorf("a job cannot run `clawseed %s` with %q: only its own flags", strings.Join(s.path, " "), rest[i])
			case takes && !hasValue:
				if i+1 == len(rest) || strings.HasPrefix(rest[i+1], "-") {
					return fmt.Errorf("--%s needs a value", name)
				}
				i++
			case !takes && hasValue:
				return fmt.Errorf("--%s takes no value (%q)", name, value)
			}
		}
		return nil
	}
	return fmt.Errorf("a job cannot run `clawseed %s`; it may run %s", strings.Join(args, " "), SchedulableList())
}

// Schedulable reports whether args names one of the commands a job may
// run, whatever its flags ([CheckSchedulable] checks them).
func Schedulable(args []string) bool {
	for _, s := range schedulableCommands() {
		if len(args) >= len(s.path) && strings.Join(args[:len(s.path)], " ") == strings.Join(s.path, " ") {
			return true
		}
	}
	return false
}
