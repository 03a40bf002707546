package permissions

import "context"

type networkKey struct{}

// WithNetwork marks ctx as carrying the user's "allow network for this
// command" answer.
func WithNetwork(ctx context.Context) context.Context {
	return context.WithValue(ctx, networkKey{}, true)
}

// NetworkAllowed reports whether the user allowed this call the network.
func NetworkAllowed(ctx context.Context) bool {
	v, _ := ctx.Value(networkKey{}).(bool)
	return v
}
