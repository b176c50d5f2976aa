package hyperfleetapi

import (
	"math"
	"testing"
	"time"
)

// The retry delay is positive and capped at MaxRetryDelay at every attempt
// count, whatever the mode: retry_attempts is bounded by the config, but the
// delay must not overflow even past that bound.
func TestRetryDelayIsCappedAtEveryAttempt(t *testing.T) {
	attempts := []int{1, 2, 10, 36, 37, 38, 63, 64, 65, 1000, 1 << 20, math.MaxInt32, math.MaxInt}
	for _, mode := range []string{"exponential", "linear", "constant", ""} {
		for _, base := range []time.Duration{time.Millisecond, 200 * time.Millisecond, time.Hour, math.MaxInt64} {
			c := New(Options{RetryBackoff: mode, BaseDelay: base})
			prev := time.Duration(0)
			for _, a := range attempts {
				d := c.delay(a)
				if d <= 0 || d > MaxRetryDelay {
					t.Fatalf("%s backoff from %s, attempt %d: delay %s, want in (0, %s]", mode, base, a, d, MaxRetryDelay)
				}
				if d < prev && mode != "constant" {
					t.Fatalf("%s backoff from %s, attempt %d: delay %s shrank from %s", mode, base, a, d, prev)
				}
				prev = d
			}
		}
	}
}
