package maestroclient

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// However large the configured backoffs, a retry waits at most one minute
// and the doubling never overflows into a negative (no-wait) delay.
func TestRetryBackoffIsCapped(t *testing.T) {
	for _, r := range []RetryOptions{
		{InitialBackoff: 1 << 62, MaxBackoff: math.MaxInt64},
		{InitialBackoff: time.Second, MaxBackoff: math.MaxInt64},
		{InitialBackoff: math.MaxInt64, MaxBackoff: time.Hour},
	} {
		o := Options{Retry: r}.withDefaults()
		if o.Retry.MaxBackoff > MaxRetryBackoff || o.Retry.InitialBackoff > o.Retry.MaxBackoff {
			t.Errorf("%+v: defaults give initial %s, max %s; want both at most 1m", r, o.Retry.InitialBackoff, o.Retry.MaxBackoff)
		}
	}
	c := testClient(3, 50*time.Millisecond)
	c.opts.Retry = RetryOptions{Attempts: 3, InitialBackoff: 1 << 62, MaxBackoff: math.MaxInt64}
	c.opts = c.opts.withDefaults()
	tries := 0
	start := time.Now()
	_ = c.call(context.Background(), "get", "c", "b", func(context.Context) error {
		tries++
		return fmt.Errorf("%w: down", adapter.ErrUnavailable)
	})
	if tries != 1 || time.Since(start) < 40*time.Millisecond {
		t.Errorf("tries = %d after %s: a huge backoff must wait (until the timeout), not overflow into none", tries, time.Since(start))
	}
}
