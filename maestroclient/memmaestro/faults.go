package memmaestro

// fault is one FailNext rule.
type fault struct {
	verb      string // "" matches every verb
	remaining int    // < 0: until ClearFaults
	err       error
}

// FailNext makes the next n calls of verb fail with err, wrapped with the
// call ("memmaestro: get consumer/name: injected fault: ..."), so errors.Is
// sees err. verb is VerbGet, VerbCreate, VerbUpdate, VerbDelete, or "" for
// every verb. n < 0 fails every matching call until ClearFaults; n == 0 does
// nothing. A failing call is recorded and changes nothing. When several rules
// match a call, the oldest one applies.
func (s *Store) FailNext(verb string, n int, err error) {
	if n == 0 || err == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{verb: verb, remaining: n, err: err})
}

// ClearFaults removes every rule set by FailNext.
func (s *Store) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// takeFault consumes the first rule matching verb and returns its error, or
// nil. The caller holds s.mu.
func (s *Store) takeFault(verb string) error {
	for i, f := range s.faults {
		if f.verb != "" && f.verb != verb {
			continue
		}
		if f.remaining > 0 {
			f.remaining--
			if f.remaining == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return f.err
	}
	return nil
}
