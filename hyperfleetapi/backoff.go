package hyperfleetapi

import "time"

// MaxRetryDelay caps the wait between two tries of one request, whatever
// the backoff mode, base delay and attempt number: the delay never
// overflows, and a request never waits longer than this between tries.
const MaxRetryDelay = 30 * time.Second

// retryDelay is the wait before try attempt+1 (attempt >= 1): base, base x
// attempt (linear) or base doubled attempt-1 times (exponential), capped at
// MaxRetryDelay. A non-positive base waits MaxRetryDelay.
func retryDelay(mode string, base time.Duration, attempt int) time.Duration {
	if base <= 0 || base >= MaxRetryDelay {
		return MaxRetryDelay
	}
	switch mode {
	case "constant":
		return base
	case "linear":
		if attempt >= int(MaxRetryDelay/base) {
			return MaxRetryDelay
		}
		return base * time.Duration(attempt)
	default:
		d := base
		for i := 1; i < attempt && d < MaxRetryDelay; i++ {
			d *= 2
		}
		return min(d, MaxRetryDelay)
	}
}
