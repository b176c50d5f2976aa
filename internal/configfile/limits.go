package configfile

import "time"

// Bounds of retry settings. A config past them is refused at load, so no
// retry loop waits for hours or computes a delay that overflows.
const (
	// MaxRetryAttempts bounds every retry_attempts (HyperFleet API client,
	// Maestro client, a task config's api_call): an event is redelivered by
	// the broker anyway, so more tries inside one event only hold a worker.
	MaxRetryAttempts = 20
	// MaxBackoff bounds broker.delivery.max_backoff (and so min_backoff):
	// Pub/Sub's retry policy allows no more than 10 minutes either.
	MaxBackoff = 10 * time.Minute
)

// checkRetryAttempts refuses retry attempts past MaxRetryAttempts; below 1
// is left to the caller (0 means "the default" in some places).
func CheckRetryAttempts(l *ErrorList, path string, n int) {
	if n > MaxRetryAttempts {
		l.Add(path, "must be at most %d (config.MaxRetryAttempts), not %d", MaxRetryAttempts, n)
	}
}

// checkBackoffs refuses a min above max and a max above MaxBackoff; the
// delivery backoff is never silently swapped or clamped.
func CheckBackoffs(l *ErrorList, path string, lo, hi Duration) {
	if hi > Duration(MaxBackoff) {
		l.Add(path+".max_backoff", "must be at most %s (config.MaxBackoff), not %s", MaxBackoff, hi)
	}
	if lo > hi {
		l.Add(path+".min_backoff", "%s is above max_backoff %s", lo, hi)
	}
}
