package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/clawseed/clawseed/runtime/session"
)

// Error is the type of app's sentinel errors. They are constants, so app
// holds no package state; match them with errors.Is.
type Error string

func (e Error) Error() string { return string(e) }

// ErrSessionsDisabled is the error of asking to resume a session with
// [sessions].enabled = false.
const ErrSessionsDisabled = Error("sessions are disabled ([sessions].enabled = false), so there is nothing to resume")

// ErrDistillFiles is the error of `memory distill` with the postgres
// backend: distillation turns the daily logs, files of one machine, into
// topic files, and that backend keeps memories as rows and has no logs.
const ErrDistillFiles = Error(`memory distill works on the daily logs of [storage].backend = "files"; with "postgres" memories are rows in the database and there are no daily logs (memory_store saves topic memories there directly)`)

// ErrOtherWorkspace is the error of /resume naming a session of another
// workspace.
const ErrOtherWorkspace = Error("the session belongs to another workspace")

// A StoreError is a session store that could not be read or written: the
// request was fine, the files were not.
type StoreError struct{ Err error }

func (e *StoreError) Error() string { return e.Err.Error() }

func (e *StoreError) Unwrap() error { return e.Err }

// sentinelError has a message of its own, and matches its sentinel (a
// session store error) with errors.Is: the caller maps the sentinel, the
// user reads the message.
type sentinelError struct {
	msg      string
	sentinel error
}

func (e *sentinelError) Error() string { return e.msg }

func (e *sentinelError) Unwrap() error { return e.sentinel }

// ResolveSession maps a session id or unique prefix to an id in the files
// store: [ResolveIn] of session.Files.
func ResolveSession(store *session.Store, arg string) (string, error) {
	return ResolveIn(context.Background(), session.Files{Store: store}, arg)
}

// ResolveIn maps a session id or unique prefix to an id. A name that
// matches no session matches session.ErrNotFound; an invalid id and an
// ambiguous prefix are the store's errors (session.ErrInvalidID,
// *session.AmbiguousError); a store that cannot be read is a [StoreError].
func ResolveIn(ctx context.Context, store SessionStore, arg string) (string, error) {
	id, err := store.Resolve(ctx, arg)
	var amb *session.AmbiguousError
	switch {
	case err == nil:
		return id, nil
	case errors.Is(err, session.ErrNotFound):
		return "", &sentinelError{fmt.Sprintf("no session %q in %s (see clawseed sessions list --all)", arg, store.Location()), session.ErrNotFound}
	case errors.Is(err, session.ErrInvalidID), errors.As(err, &amb):
		return "", err
	}
	return "", &StoreError{Err: err}
}
