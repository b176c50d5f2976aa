package memkube

import (
	"context"
	"fmt"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// Verbs of recorded calls.
const (
	VerbGet    = "get"
	VerbList   = "list"
	VerbCreate = "create"
	VerbApply  = "apply"
	VerbDelete = "delete"
)

// Call is one recorded call; failed calls are recorded too.
type Call struct {
	Verb        string
	Ref         adapter.KubeRef
	Labels      map[string]string // List
	Propagation string            // Delete
}

// String renders the call as "memkube: verb Kind namespace/name".
func (c Call) String() string {
	s := fmt.Sprintf("memkube: %s %s", c.Verb, describe(c.Ref))
	if c.Propagation != "" {
		s += " propagation=" + c.Propagation
	}
	return s
}

// Calls returns every call since New or ResetCalls, in order.
func (s *Store) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Count is the number of recorded calls of verb.
func (s *Store) Count(verb string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c.Verb == verb {
			n++
		}
	}
	return n
}

// Writes is the number of recorded Create, Apply and Delete calls.
func (s *Store) Writes() int {
	return s.Count(VerbCreate) + s.Count(VerbApply) + s.Count(VerbDelete)
}

// ResetCalls forgets the recorded calls.
func (s *Store) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

type fault struct {
	verb string
	n    int
	err  error
}

// FailNext makes the next n calls of verb ("" for any) return err without
// doing anything (they are still recorded).
func (s *Store) FailNext(verb string, n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{verb: verb, n: n, err: err})
}

// begin records a call, honours ctx and injected faults. It locks mu; the
// caller unlocks it.
func (s *Store) begin(ctx context.Context, c Call) error {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	if err := ctx.Err(); err != nil {
		return kubeerr.Wrap(adapter.ErrUnavailable, "memkube: %v", err)
	}
	for _, f := range s.faults {
		if f.n > 0 && (f.verb == "" || f.verb == c.Verb) {
			f.n--
			return f.err
		}
	}
	return nil
}
