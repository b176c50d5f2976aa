package adapter

import "context"

type readAbsentKey struct{}

// WithReadAbsent marks ctx for a Maestro.Create whose caller read the
// bundle in this event and Maestro answered 404 (ErrNotFound). An
// implementation may then skip an existence check of its own before it
// publishes, relying on Maestro, which refuses a create of a bundle that
// exists, deleting or not; Create must still return ErrAlreadyExists then.
// The pipeline marks every create it makes: it creates only after such a
// read, never on the view's word.
func WithReadAbsent(ctx context.Context) context.Context {
	return context.WithValue(ctx, readAbsentKey{}, true)
}

// ReadAbsent reports whether ctx was marked by WithReadAbsent.
func ReadAbsent(ctx context.Context) bool {
	v, _ := ctx.Value(readAbsentKey{}).(bool)
	return v
}
