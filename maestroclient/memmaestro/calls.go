package memmaestro

import "fmt"

// Verbs of recorded calls.
const (
	VerbGet    = "get"
	VerbCreate = "create"
	VerbUpdate = "update"
	VerbDelete = "delete"
	// VerbRedelete is a delete sent again (adapter.Maestro.Redelete).
	VerbRedelete = "redelete"
)

// Call is one recorded Maestro call. Failed calls are recorded too.
type Call struct {
	Verb     string // VerbGet, VerbCreate, VerbUpdate, VerbDelete or VerbRedelete
	Consumer string
	Name     string // work name; empty when the request carried none
}

// String renders the call as "memmaestro: verb consumer/name".
func (c Call) String() string {
	return fmt.Sprintf("memmaestro: %s %s/%s", c.Verb, c.Consumer, c.Name)
}

// Calls returns every call made since New or the last ResetCalls, in order.
func (s *Store) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// ResetCalls forgets the recorded calls.
func (s *Store) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}
