package stacktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maestroClient is RegisterConsumers' HTTP client; its timeout bounds
// each registration.
var maestroClient = &http.Client{Timeout: 30 * time.Second}

// RegisterConsumers registers each consumer name in the Maestro whose REST
// API is at rest. A consumer that already exists (409) is fine; any other
// answer but 200 or 201 is an error naming the consumer, the status and
// Maestro's message, and stops the registration there.
func RegisterConsumers(ctx context.Context, rest string, names []string) error {
	for _, n := range names {
		if err := registerConsumer(ctx, rest, n); err != nil {
			return fmt.Errorf("register consumer %s: %w", n, err)
		}
	}
	return nil
}

func registerConsumer(ctx context.Context, rest, name string) error {
	body, err := json.Marshal(map[string]string{"name": name})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rest+"/api/maestro/v1/consumers", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := maestroClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch resp.StatusCode {
	case http.StatusCreated, http.StatusOK, http.StatusConflict:
		return nil
	}
	return fmt.Errorf("HTTP %d: %s", resp.StatusCode, msg)
}
