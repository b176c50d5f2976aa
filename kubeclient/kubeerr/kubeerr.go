// Package kubeerr words the refusals of a Kubernetes API server (real, or
// memkube's in-memory one) as Kubernetes', keeping the adapter sentinel
// they mean for errors.Is. The sentinels' own texts speak of Maestro and
// bundles ("request rejected by maestro as invalid"); printed in front of a
// Kubernetes answer they would name the wrong boundary.
package kubeerr

import (
	"fmt"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// wording is how each sentinel reads when Kubernetes is the boundary.
var wording = map[error]string{
	adapter.ErrInvalid:       "refused by Kubernetes as invalid",
	adapter.ErrNotFound:      "not found in Kubernetes",
	adapter.ErrAlreadyExists: "already exists in Kubernetes",
	adapter.ErrUnderDeletion: "being deleted in Kubernetes",
	adapter.ErrUnavailable:   "Kubernetes API unavailable",
}

// Error is a Kubernetes refusal: errors.Is(err, Sentinel) holds, and so
// does errors.Is/As on the cause; Error() starts with the Kubernetes
// wording of the sentinel, never the sentinel's own text.
type Error struct {
	Sentinel error
	Cause    error
}

func (e *Error) Error() string {
	w, ok := wording[e.Sentinel]
	if !ok {
		w = "Kubernetes: " + e.Sentinel.Error()
	}
	return w + ": " + e.Cause.Error()
}

// Unwrap returns the sentinel and the cause.
func (e *Error) Unwrap() []error { return []error{e.Sentinel, e.Cause} }

// Wrap returns an Error of sentinel whose cause is fmt.Errorf(format,
// args...) (%w in format wraps as usual).
func Wrap(sentinel error, format string, args ...any) error {
	return &Error{Sentinel: sentinel, Cause: fmt.Errorf(format, args...)}
}
