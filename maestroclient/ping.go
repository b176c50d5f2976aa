package maestroclient

import (
	"context"
	"fmt"
	"net/http"
)

// Ping asks Maestro's REST API for its root (GET /api/maestro/v1) over the
// pool's own REST connection, so with the same TLS settings as every read.
// It does not wait for a read slot. nil means Maestro answered below 500;
// an error is a transport failure (unreachable, TLS refused) or a 5xx.
func (p *Pool) Ping(ctx context.Context) error {
	return p.clients[0].rest.ping(ctx)
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
