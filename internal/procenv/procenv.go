// Package procenv hardens the clawseed process against the commands it runs
// for the model.
//
// The shell tool starts its children with a scrubbed environment, but a
// child can still look at its parent: /proc/$PPID/environ shows the
// environment block clawseed was started with, secrets included. Two things
// close that door on Linux, and [Harden] does both at start:
//
//   - the process is made non-dumpable (prctl PR_SET_DUMPABLE 0), so that
//     processes of the same user without CAP_SYS_PTRACE can no longer open
//     its /proc/PID/environ, /proc/PID/mem, attach a debugger or get a core
//     dump;
//   - the values of secret-looking variables are overwritten in the
//     environment block itself. This is needed because a root process (or
//     any with CAP_SYS_PTRACE) ignores dumpability, and because neither
//     os.Unsetenv nor os.Setenv changes what /proc/PID/environ shows: the
//     kernel reads the block left on the process's initial stack at exec,
//     whose bounds it publishes as env_start and env_end in /proc/PID/stat.
//     Go keeps its own copy of the environment on the heap, so os.Getenv
//     still returns the real values afterwards.
//
// Nothing is done on other systems, where /proc/PID/environ does not exist.
package procenv

import "sync"

// mask replaces every byte of a hidden value in the environment block, so
// that /proc/PID/environ shows NAME=**** and keeps its entry boundaries.
const mask = '*'

var (
	once    sync.Once
	onceErr error
)

// Harden makes the process non-dumpable and hides the values of the
// variables for which isSecret(name, value) is true from /proc/PID/environ
// (clawseed passes the rule of its children's environment,
// tools.IsSecretEnv, so both agree on what a secret is), keeping
// them in the process's own environment. It does its work once per process;
// later calls return the first call's result. The error says which values
// could not be hidden; the process is usable either way.
func Harden(isSecret func(name, value string) bool) error {
	once.Do(func() { onceErr = harden(isSecret) })
	return onceErr
}
