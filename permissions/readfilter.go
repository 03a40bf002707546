package permissions

import "context"

// readFilterKey is the context key of [WithReadFilter].
type readFilterKey struct{}

// WithReadFilter returns a context that makes the search tools leave out
// the files hidden reports (absolute paths, in every form the tool knows:
// as found and resolved): the agent gives each call the files that deny
// and ask rules of reading cover ([Hides]), so that a search of the
// workspace does not show what `Read(./secrets/**)` denies.
func WithReadFilter(ctx context.Context, hidden func(forms ...string) bool) context.Context {
	return context.WithValue(ctx, readFilterKey{}, hidden)
}

// ReadHidden reports whether the call running with ctx must leave out the
// file with these forms of its path.
func ReadHidden(ctx context.Context, forms ...string) bool {
	hidden, _ := ctx.Value(readFilterKey{}).(func(...string) bool)
	return hidden != nil && hidden(forms...)
}
