package maestroclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// call runs try under the configured timeout and retries it with backoff
// while it fails with ErrUnavailable. The returned error names op, consumer
// and name and wraps the sentinel of the last failure.
func (c *Client) call(ctx context.Context, op, consumer, name string, try func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(withLibraryLogger(ctx, c.libLog), c.opts.Timeout)
	defer cancel()
	backoff := c.opts.Retry.InitialBackoff
	for attempt := 1; ; attempt++ {
		err := try(ctx)
		if !retryable(err) || attempt >= c.opts.Retry.Attempts {
			return wrapCall(op, consumer, name, err)
		}
		c.log.DebugContext(ctx, "maestro call failed, retrying", "op", op, "consumer", consumer,
			"name", name, "attempt", attempt, "backoff", backoff, "error", err)
		if werr := sleep(ctx, backoff); werr != nil {
			return wrapCall(op, consumer, name, fmt.Errorf("%w (gave up retrying: %w)", err, werr))
		}
		backoff = nextBackoff(backoff, c.opts.Retry.MaxBackoff)
	}
}

// nextBackoff doubles cur up to max without overflowing.
func nextBackoff(cur, max time.Duration) time.Duration {
	if cur <= 0 || cur >= max/2 {
		return max
	}
	return 2 * cur
}

func wrapCall(op, consumer, name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("maestro %s %s/%s: %w", op, consumer, name, err)
}

func retryable(err error) bool {
	return errors.Is(err, adapter.ErrUnavailable) && !errors.Is(err, errVersionConflict)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
