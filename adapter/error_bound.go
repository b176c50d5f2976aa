package adapter

import (
	"fmt"
	"unicode/utf8"
)

// maxOutcomeError bounds the text of a failed resource's error, which the
// status reports (bundles.<name>.error), the event's error carries and the
// logs print: a boundary that echoes a value it refused (an API server's
// 422 quoting a 1 MiB label value, twice for a selector) cannot make them
// megabytes long.
const maxOutcomeError = 4096

// boundedError is an error whose text is cut at maxOutcomeError bytes (on
// a rune boundary, saying how much was cut); errors.Is and errors.As see
// the error it wraps.
type boundedError struct{ err error }

// boundError wraps err in a boundedError when its text is too long.
func boundError(err error) error {
	if err == nil || len(err.Error()) <= maxOutcomeError {
		return err
	}
	return boundedError{err}
}

func (e boundedError) Error() string {
	s := e.err.Error()
	n := maxOutcomeError
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:n], len(s)-n)
}

func (e boundedError) Unwrap() error { return e.err }
