package broker

import "time"

// MaxBackoff caps the redelivery delay of the Dispatcher whatever
// DispatcherOptions.MaxBackoff asks for (config.MaxBackoff refuses more at
// load; Pub/Sub's retry policy allows no more either).
const MaxBackoff = 10 * time.Minute

// NextBackoff is the delay after cur when delays double up to max: 2*cur,
// or max once that reaches or passes it. It never overflows, and a
// non-positive cur jumps to max.
func NextBackoff(cur, max time.Duration) time.Duration {
	if cur <= 0 || cur >= max/2 {
		return max
	}
	return 2 * cur
}
