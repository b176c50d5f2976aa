package maestroclient

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// Ping asks Maestro's REST API for its root (GET /api/maestro/v1) over the
// pool's own REST connection, so with the same TLS settings as every read,
// and checks that every source client holds its gRPC connection. It does
// not wait for a read slot. nil means Maestro answered below 500 and no
// client is waiting to reconnect; an error is a transport failure
// (unreachable, TLS refused), a 5xx, a SubscriptionRefusedError (Maestro
// refuses the status subscription the bundle view needs; no write is sent
// meanwhile), or the clients still reconnecting (their writes fail
// meanwhile; see ReconnectMaxDelay).
func (p *Pool) Ping(ctx context.Context) error {
	if err := p.clients[0].rest.ping(ctx); err != nil {
		return err
	}
	if err := p.clients[0].subscription.refusalOrNil(); err != nil {
		return err
	}
	return p.reconnecting()
}

// SourceClients reports how many of the pool's source clients hold their
// gRPC connection now (sdk-go accepts their writes) and how many there are:
// connected < total means writes through the others fail ("the cloudevents
// client is not ready") until they reconnect (at most ReconnectMaxDelay
// after Maestro answers again). Safe for concurrent use.
func (p *Pool) SourceClients() (connected, total int) {
	for _, c := range p.clients {
		if c.transport.connected() {
			connected++
		}
	}
	return connected, len(p.clients)
}

// reconnecting names the source clients waiting to reconnect, nil if none.
func (p *Pool) reconnecting() error {
	var down []string
	for i, c := range p.clients {
		if !c.transport.connected() {
			down = append(down, strconv.Itoa(i))
		}
	}
	if len(down) == 0 {
		return nil
	}
	return fmt.Errorf("gRPC source connection to %s lost: client %s of %d reconnecting (writes fail meanwhile)",
		secret.MaskURL(p.clients[0].opts.GRPCAddress), strings.Join(down, ", "), len(p.clients))
}

func (r *restReader) ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.base+"/api/maestro/v1", nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%s answered %d", req.URL, resp.StatusCode)
	}
	return nil
}
