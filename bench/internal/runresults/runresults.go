// Package runresults is the part of a bench/load run's results.json that
// bench/load writes and bench/report reads: the floors and their verdicts,
// the measures that may not be measurable ("n/a"), and how a measure is
// printed in both programs' tables. Keeping it in one place keeps the
// writer and the reader of the file agreeing on it.
package runresults

import (
	"encoding/json"
	"fmt"
)

// Floor is one checked floor of a run and its verdict: PASS, MISS or N/A.
type Floor struct {
	Name     string  `json:"name"`
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"`
	Limit    string  `json:"limit"`
	Verdict  string  `json:"verdict"`
	Note     string  `json:"note,omitempty"`
}

// Maybe is a measure that may not be measurable: a JSON number when OK,
// the string "n/a" when not. The zero Maybe is not measured.
type Maybe struct {
	V  float64
	OK bool
}

// Measured is v, measured.
func Measured(v float64) Maybe { return Maybe{V: v, OK: true} }

// MarshalJSON writes the number, or "n/a" when not measured.
func (m Maybe) MarshalJSON() ([]byte, error) {
	if !m.OK {
		return []byte(`"n/a"`), nil
	}
	return json.Marshal(m.V)
}

// UnmarshalJSON reads a number as measured; anything else that is valid
// JSON ("n/a", null) as not measured.
func (m *Maybe) UnmarshalJSON(data []byte) error {
	var v float64
	if json.Unmarshal(data, &v) == nil {
		*m = Measured(v)
		return nil
	}
	*m = Maybe{}
	return nil
}

// String is the measure as Num prints it, or "n/a".
func (m Maybe) String() string {
	if !m.OK {
		return "n/a"
	}
	return Num(m.V)
}

// Num formats a measure with a precision fit for its size: no decimals
// from 100 up, one from 10, two from 0.1, three below.
func Num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.1 || v <= -0.1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}
