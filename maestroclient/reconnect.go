package maestroclient

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	ceclients "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/clients"
	ceoptions "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/options"
)

// Reconnection of the gRPC source connection after Maestro went away.
//
// sdk-go's CloudEvents client (generic/clients baseClient) waits
// ceclients.DelayFn() after every lost connection, failed reconnect or
// failed subscribe before it tries again, and refuses every write meanwhile
// ("the cloudevents client is not ready"). Its DelayFn is one exponential
// backoff (5 s, ×5, capped at 1 min, jitter 1.0: up to 2 min) shared by
// every client of the process: a Pool's four clients losing Maestro at once
// took its first four steps, so after one Maestro restart two of them
// waited 1 to 2 minutes while Maestro was back (issue 48: writes failed for
// 94 and 109 s after a restart). hyperfleet-adapter capped the gRPC
// connection's own backoff at 5 s for the same symptom (its PR #219); here
// the wait that held the writes is sdk-go's, so both are bounded.
const (
	// ReconnectMinDelay and ReconnectMaxDelay bound sdk-go's wait before
	// each reconnect: uniform between the two, the same for every attempt
	// and every client (no shared state, no growth), so a client writes
	// again at most ReconnectMaxDelay after Maestro is back. While Maestro
	// is down each client retries about once a second, and only when a
	// write makes it try (the connection is opened lazily): a refused dial.
	ReconnectMinDelay = time.Second
	ReconnectMaxDelay = 2 * time.Second
	// connectTimeout bounds one gRPC connection attempt (grpc-go's
	// MinConnectTimeout, default 20 s): a dial that hangs (a Service whose
	// pod is gone drops the SYN) fails and is retried after the delay.
	connectTimeout = 3 * time.Second
)

// The wait is process-wide in sdk-go (a package variable read by every
// client's goroutines): it is set once, before any client can exist.
func init() { ceclients.DelayFn = reconnectDelay }

// reconnectDelay is sdk-go's wait before a reconnect: uniform in
// [ReconnectMinDelay, ReconnectMaxDelay). Safe for concurrent use.
func reconnectDelay() time.Duration {
	return ReconnectMinDelay + rand.N(ReconnectMaxDelay-ReconnectMinDelay)
}

// connectParams bounds grpc-go's own backoff between connection attempts
// of one connection and each attempt's duration. sdk-go closes a connection
// that fails and dials a new one after reconnectDelay, so this applies only
// while one connection is still trying.
func connectParams() grpc.DialOption {
	return grpc.WithConnectParams(grpc.ConnectParams{
		Backoff: backoff.Config{BaseDelay: ReconnectMinDelay / 2, Multiplier: 1.6, Jitter: 0.2,
			MaxDelay: ReconnectMaxDelay},
		MinConnectTimeout: connectTimeout,
	})
}

// watchedTransport is sdk-go's gRPC source transport, watched: sdk-go's
// client connects it (Connect) after every wait and closes it (Close) as
// soon as it finds the connection lost, before it waits, so between the
// two the client accepts writes and outside it refuses them. up says which.
//
// It also reads the errors the transport reports to sdk-go on their way
// (ErrorChan), to tell a refused status subscription from a lost
// connection (refusal.go). life bounds that reading; nil stands for
// context.Background (tests).
type watchedTransport struct {
	ceoptions.CloudEventTransport
	up    atomic.Bool
	life  context.Context
	watch errorWatch
}

// ErrorChan is the transport's error channel as sdk-go's client reads it,
// each error noted on its way (see errorWatch).
func (t *watchedTransport) ErrorChan() <-chan error {
	life := t.life
	if life == nil {
		life = context.Background()
	}
	return t.watch.forward(life, t.CloudEventTransport.ErrorChan())
}

func (t *watchedTransport) Connect(ctx context.Context) error {
	err := t.CloudEventTransport.Connect(ctx)
	t.up.Store(err == nil)
	return err
}

func (t *watchedTransport) Close(ctx context.Context) error {
	t.up.Store(false)
	return t.CloudEventTransport.Close(ctx)
}

// connected reports whether sdk-go's client holds a connection (it is not
// waiting to reconnect).
func (t *watchedTransport) connected() bool { return t.up.Load() }
