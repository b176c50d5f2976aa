package configfile

import "time"

// Bounds of retry settings. A config past them is refused at load, so no
// retry loop waits for hours or computes a delay that overflows. The
// adapter and broker configs' bounds table (config.AdapterBounds,
// config.BrokerBounds) refers to them; a task config's api_call checks
// CheckRetryAttempts.
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
