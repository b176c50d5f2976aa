package maestroclient_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestUnavailable needs no server: every call to a Maestro that does not
// answer fails with ErrUnavailable, after its retries, within the timeout.
func TestUnavailable(t *testing.T) {
	addr := closedAddr(t)
	const timeout = 2 * time.Second
	c, err := maestroclient.New(context.Background(), maestroclient.Options{
		GRPCAddress: addr, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: "http://" + addr, HTTP: maestroclient.TLSOptions{Insecure: true},
		Timeout: timeout, Logger: testLogger(t),
		Retry: maestroclient.RetryOptions{Attempts: 3, InitialBackoff: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatalf("New must not need the server: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	observed := bundle("b", "v1")
	observed.Generation = 1
	tests := []struct {
		name string
		call func(context.Context) error
	}{
		{"get", func(ctx context.Context) error { _, err := c.Get(ctx, "c", "b"); return err }},
		{"create", func(ctx context.Context) error {
			_, err := c.Create(ctx, "c", bundle("b", "v1"), adapter.Unread)
			return err
		}},
		{"update", func(ctx context.Context) error { _, err := c.Update(ctx, "c", observed, bundle("b", "v2")); return err }},
		{"delete", func(ctx context.Context) error { return c.Delete(ctx, "c", "b") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := tt.call(t.Context())
			if !errors.Is(err, adapter.ErrUnavailable) {
				t.Fatalf("got %v, want ErrUnavailable", err)
			}
			if d := time.Since(start); d > timeout+500*time.Millisecond {
				t.Fatalf("took %s, timeout is %s", d, timeout)
			}
		})
	}
}

// TestCallerDeadline: the caller's context bounds a call too, and a
// cancelled call is not reported as ErrUnavailable.
func TestCallerDeadline(t *testing.T) {
	addr := closedAddr(t)
	c, err := maestroclient.New(context.Background(), maestroclient.Options{
		GRPCAddress: addr, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: "http://" + addr, HTTP: maestroclient.TLSOptions{Insecure: true},
		Timeout: time.Minute, Logger: testLogger(t),
		Retry: maestroclient.RetryOptions{Attempts: 100, InitialBackoff: 100 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Get(ctx, "c", "b")
	if !errors.Is(err, adapter.ErrUnavailable) || time.Since(start) > time.Second {
		t.Errorf("deadline: got %v after %s", err, time.Since(start))
	}

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	_, err = c.Get(ctx, "c", "b")
	if !errors.Is(err, context.Canceled) || errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("cancelled: got %v", err)
	}
}
