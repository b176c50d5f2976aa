package broker

import (
	"context"
	"time"
)

// Wait waits d and reports true, or reports false as soon as ctx is done.
// The consumers wait with it between reconnect attempts.
func Wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
