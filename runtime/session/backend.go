package session

import "context"

// A Backend is a store of sessions as the app layer uses it: the JSONL
// files ([Files]) or a database (runtime/pgstore's Sessions). The one
// contract both implement; runtime/session/sessiontest checks that they
// behave alike.
type Backend interface {
	// Location names the store in messages (a folder, a database).
	Location() string
	Create(h Header) *Writer
	Open(ctx context.Context, id string) (*Writer, *Session, error)
	Load(ctx context.Context, id string) (*Session, error)
	List(ctx context.Context) ([]Info, error)
	Latest(ctx context.Context, workspace string) (string, error)
	Resolve(ctx context.Context, idOrPrefix string) (string, error)
	Remove(ctx context.Context, id string, force bool) error
	SummaryPath(id string) (string, error)
	ReadSummary(ctx context.Context, id string) (Summary, bool, error)
	// Export and Import move a session whole between stores (`clawseed
	// storage export|import`).
	Export(ctx context.Context, id string) (Stored, error)
	Import(ctx context.Context, st Stored) error
	// InUse reports whether a Writer of any process has the session open
	// (a turn runs there).
	InUse(ctx context.Context, id string) (bool, error)
}
