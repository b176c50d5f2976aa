package maestroclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A refused status subscription (issue 47).
//
// A client that subscribes to the source's status events (the bundle view
// is on) opens Maestro's Subscribe stream with the same identity it
// publishes with. Maestro's authorizer may refuse it ("unauthorized to
// subscribe the event from source ...", gRPC code Unknown), and sdk-go then
// treats the refusal as a lost connection: it closes the transport, waits
// DelayFn, reconnects, is refused again, for ever. Its writes meanwhile fail
// as "the cloudevents client is not ready", which the adapter would retry as
// unavailable and report as Maestro being away, never as the authorization
// that no retry fixes. The watchedTransport therefore reads the errors sdk-go
// receives from the transport on their way to sdk-go, and keeps the last
// refusal: a write refused as not ready while it is fresh fails with the
// refusal instead (not retried), and Ping (/readyz) names it.

// refusalFresh is how long a refused subscription counts after it was last
// seen: sdk-go tries again after each DelayFn (at most ReconnectMaxDelay)
// plus a connection attempt (at most connectTimeout), and each try is
// refused at once, so a refusal is seen at least every 5 s while it lasts.
// Once the identity is allowed, nothing is refused any more and the mark
// ages out: writes and /readyz are as usual again after refusalFresh.
const refusalFresh = 2*ReconnectMaxDelay + connectTimeout + time.Second

// refusalMark is one refusal of the status subscription and when it came.
type refusalMark struct {
	err error
	at  time.Time
}

// subscriptionRefusal reports whether err, as sdk-go's transport reports a
// failed Subscribe stream, is an authentication or authorization refusal
// (the fragments of errors.go's permanent list) rather than a lost or
// unavailable server (which includes an authorizer that could not answer).
func subscriptionRefusal(err error) bool {
	msg := strings.ToLower(err.Error())
	if authorizerUnavailable(msg) {
		return false
	}
	for _, p := range permanent {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// errorWatch sits between the transport's error channel and sdk-go's
// client: it notes each error and hands it on exactly as the transport
// would (a send sdk-go is not waiting for is dropped, as the transport
// drops it), until ctx ends.
//
// A refusal is kept whether sdk-go takes it or not (it is the identity's,
// whichever connection it came on). Any other error forgets the refusal
// only when sdk-go takes it: what it drops comes from a connection it has
// already closed, as the "grpc connection is disconnected (state=SHUTDOWN)"
// that follows every refusal once sdk-go closes the transport (seen on the
// real Maestro: counting it hid every refusal from /readyz).
type errorWatch struct {
	once    sync.Once
	out     chan error
	refused atomic.Pointer[refusalMark]
	now     func() time.Time
}

// forward starts, once, the goroutine that reads in and hands on to out.
func (w *errorWatch) forward(ctx context.Context, in <-chan error) <-chan error {
	w.once.Do(func() {
		w.out = make(chan error)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case err, ok := <-in:
					if !ok {
						close(w.out)
						return
					}
					w.pass(err)
				}
			}
		}()
	})
	return w.out
}

// pass notes err and hands it on if sdk-go waits for it.
func (w *errorWatch) pass(err error) {
	refusal := err != nil && subscriptionRefusal(err)
	if refusal {
		w.refused.Store(&refusalMark{err: err, at: w.clock()})
	}
	select {
	case w.out <- err:
		if !refusal {
			w.refused.Store(nil) // the server is away, not refusing
		}
	default:
	}
}

// refusal is the subscription's refusal seen within refusalFresh, as an
// error naming what needs it and how to fix it; nil if none.
func (w *errorWatch) refusal() error {
	m := w.refused.Load()
	if m == nil || w.clock().Sub(m.at) > refusalFresh {
		return nil
	}
	return &SubscriptionRefusedError{Err: m.err}
}

func (w *errorWatch) clock() time.Time {
	if w.now != nil {
		return w.now()
	}
	return time.Now()
}

// SubscriptionRefusedError is a write or readiness check failing because
// Maestro refuses this source's status subscription, which the bundle view
// needs. It is not ErrUnavailable: no retry fixes it until the identity is
// allowed to subscribe or the view is turned off.
type SubscriptionRefusedError struct{ Err error }

func (e *SubscriptionRefusedError) Error() string {
	return fmt.Sprintf("Maestro refuses this source's status subscription, which the bundle view needs "+
		"(allow this identity to subscribe as it publishes, or set clients.maestro.view.enabled: false): %v", e.Err)
}

func (e *SubscriptionRefusedError) Unwrap() error { return e.Err }

// orRefusal is err, or the subscription's refusal when err is a write sdk-go
// refused as not ready ("the cloudevents client is not ready") while the
// subscription is refused: the client is not ready because of it. A nil
// errorWatch (no client of this pool subscribes) returns err.
func (w *errorWatch) orRefusal(err error) error {
	if w == nil || err == nil || !strings.Contains(err.Error(), "cloudevents client is not ready") {
		return err
	}
	if r := w.refusal(); r != nil {
		return r
	}
	return err
}

// refusalOrNil is w.refusal(), nil for a nil errorWatch.
func (w *errorWatch) refusalOrNil() error {
	if w == nil {
		return nil
	}
	return w.refusal()
}
