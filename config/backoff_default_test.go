package config

import (
	"testing"
	"time"
)

// sentinelResendPeriod is how often HyperFleet's Sentinel resends an event
// for a resource whose status is not current (its max_age_not_ready is 10s;
// a refused status report keeps it there, and it was seen resending every
// 5 s).
const sentinelResendPeriod = 10 * time.Second

// The default first redelivery waits at least as long as Sentinel takes to
// resend: a sooner one only repeats Sentinel's own retry, and with
// superseding (docs/delivery.md) an API outage then costs one run per
// Sentinel event instead of three.
func TestDefaultMinBackoffCoversSentinelResend(t *testing.T) {
	d := defaultBrokerConfig().Settings.Delivery
	if got := d.MinBackoff.D(); got < sentinelResendPeriod {
		t.Errorf("default broker.delivery.min_backoff %v is below Sentinel's resend period %v", got, sentinelResendPeriod)
	}
	if d.MinBackoff.D() > d.MaxBackoff.D() {
		t.Errorf("default min_backoff %v above max_backoff %v", d.MinBackoff.D(), d.MaxBackoff.D())
	}
}
