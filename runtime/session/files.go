package session

import "context"

// Files is a [Store] behind the context-first methods every session store
// has (runtime/pgstore's Sessions has the same), so that a caller can hold
// either behind an interface of its own. The files need no context: it is
// not consulted.
type Files struct{ Store *Store }

// Location names the store in messages: its folder.
func (f Files) Location() string { return f.Store.Dir }

// Create is [Store.Create].
func (f Files) Create(h Header) *Writer { return f.Store.Create(h) }

// Open is [Store.Open].
func (f Files) Open(_ context.Context, id string) (*Writer, *Session, error) { return f.Store.Open(id) }

// Load is [Store.Load].
func (f Files) Load(_ context.Context, id string) (*Session, error) { return f.Store.Load(id) }

// List is [Store.List].
func (f Files) List(context.Context) ([]Info, error) { return f.Store.List() }

// Latest is [Store.Latest].
func (f Files) Latest(_ context.Context, workspace string) (string, error) {
	return f.Store.Latest(workspace)
}

// Resolve is [Store.Resolve].
func (f Files) Resolve(_ context.Context, idOrPrefix string) (string, error) {
	return f.Store.Resolve(idOrPrefix)
}

// Remove is [Store.Remove].
func (f Files) Remove(_ context.Context, id string, force bool) error {
	return f.Store.Remove(id, force)
}

// SummaryPath is [Store.SummaryPath].
func (f Files) SummaryPath(id string) (string, error) { return f.Store.SummaryPath(id) }

// ReadSummary is [Store.ReadSummary].
func (f Files) ReadSummary(_ context.Context, id string) (Summary, bool, error) {
	return f.Store.ReadSummary(id)
}

// Export is [Store.Export].
func (f Files) Export(_ context.Context, id string) (Stored, error) { return f.Store.Export(id) }

// Import is [Store.Import].
func (f Files) Import(_ context.Context, st Stored) error { return f.Store.Import(st) }

// InUse is [Store.InUse].
func (f Files) InUse(_ context.Context, id string) (bool, error) { return f.Store.InUse(id) }
