package kubeclient

import (
	"context"
	"fmt"
)

// Ping asks the API server's /readyz, with the client's credentials and
// TLS settings. nil means the server answered that it is ready; an error is
// a transport failure, a refusal or a not-ready answer. Every identity may
// read /readyz on a default cluster (system:public-info-viewer).
func (c *Client) Ping(ctx context.Context) error {
	if _, err := c.disco.RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("kubernetes API server /readyz: %w", err)
	}
	return nil
}
