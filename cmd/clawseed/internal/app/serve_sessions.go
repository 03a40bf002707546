package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/trust"
	"github.com/clawseed/clawseed/runtime/session"
)

// The saved sessions as `clawseed serve` reaches them without a running
// session: its listing, the header it reads before resuming one (whose
// workspace the caller must be allowed), and deletion. Resuming itself is
// [Build] with [Options].Resume, as for chat and run. Ids are exact here:
// a prefix that the command line would resolve names nothing over HTTP.

// savedStore is the session store of cfg ([OpenSessionStore]: the
// files or the database of [storage].backend); [ErrSessionsDisabled] when
// sessions are off.
func savedStore(ctx context.Context, cfg *config.Config, p *Process) (SessionStore, error) {
	if !cfg.Sessions.Enabled {
		return nil, ErrSessionsDisabled
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return OpenSessionStore(ctx, cfg, p)
}

// SavedSessions lists every saved session of cfg's store, newest first
// (`clawseed sessions list --all`), unreadable ones included with Err
// set. A store that cannot be read is a [StoreError].
func SavedSessions(ctx context.Context, cfg *config.Config, p *Process) ([]session.Info, error) {
	store, err := savedStore(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	infos, err := store.List(ctx)
	if err != nil {
		return nil, &StoreError{Err: err}
	}
	return infos, nil
}

// LoadSaved reads the saved session id (an exact id) without opening it.
// One that does not exist matches session.ErrNotFound, an id that is no
// file name session.ErrInvalidID; other failures are a [StoreError].
func LoadSaved(ctx context.Context, cfg *config.Config, p *Process, id string) (*session.Session, error) {
	store, err := savedStore(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	sess, err := store.Load(ctx, id)
	switch {
	case err == nil:
		return sess, nil
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrInvalidID):
		return nil, err
	}
	return nil, &StoreError{Err: err}
}

// RemoveSaved deletes the saved session id (an exact id) and its summary,
// as `clawseed sessions rm` without --force: one that a process (a
// replica) has open matches session.ErrInUse, one that does not exist
// session.ErrNotFound.
func RemoveSaved(ctx context.Context, cfg *config.Config, p *Process, id string) error {
	store, err := savedStore(ctx, cfg, p)
	if err != nil {
		return err
	}
	err = store.Remove(ctx, id, false)
	switch {
	case err == nil, errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrInUse), errors.Is(err, session.ErrInvalidID):
		return err
	}
	return &StoreError{Err: err}
}

// SessionInUse reports whether a process (a replica) has the saved
// session id open: on the postgres backend, whether one runs a turn in it.
func SessionInUse(ctx context.Context, cfg *config.Config, p *Process, id string) (bool, error) {
	store, err := savedStore(ctx, cfg, p)
	if err != nil {
		return false, err
	}
	return store.InUse(ctx, id)
}

// StoreTrusts reports whether the trust store of cfg's CLAWSEED_HOME
// trusts the directory dir: the server's rule for a workspace (neither
// --trust nor CLAWSEED_TRUST_WORKSPACE, which trust the one workspace of a
// command line, count for the workspaces of a server's clients). When the
// user trusted dir but its project files changed since, why says which
// (trust.Verdict.Reason).
func StoreTrusts(cfg *config.Config, dir string) (ok bool, why string, err error) {
	st, err := trust.Load(trustStorePath(cfg.Home))
	if err != nil {
		return false, "", fmt.Errorf("trust store: %w", err)
	}
	v := st.Check(filepath.Clean(dir))
	return v.Trusted, v.Reason(), nil
}
