package kubeclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// TestMapperResetsOnceForANewKind: a kind installed after the first
// discovery (a CRD) is found by resetting the cache once; a kind that stays
// unknown does not refetch discovery at every call.
func TestMapperResetsOnceForANewKind(t *testing.T) {
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "ns1", "uid": "u"}})
	})
	c := f.client(t, Options{})
	clock := time.Unix(1000, 0)
	c.mapper.now = func() time.Time { return clock }
	ctx := context.Background()
	widget := adapter.KubeRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "ns1", Name: "w"}

	if _, err := c.Get(ctx, cmRef); err != nil && !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("first Get: %v", err)
	}
	base := f.discovery.Load()

	_, err := c.Get(ctx, widget)
	if !errors.Is(err, adapter.ErrInvalid) {
		t.Fatalf("Get of a kind not served yet: %v, want ErrInvalid", err)
	}
	afterFirstMiss := f.discovery.Load()
	if afterFirstMiss == base {
		t.Fatalf("an unknown kind did not refetch discovery")
	}
	if _, err := c.Get(ctx, widget); !errors.Is(err, adapter.ErrInvalid) {
		t.Fatalf("second Get of the unknown kind: %v", err)
	}
	if n := f.discovery.Load(); n != afterFirstMiss {
		t.Errorf("a second miss within %v refetched discovery (%d -> %d requests)", resetInterval, afterFirstMiss, n)
	}

	f.widgets.Store(true)
	clock = clock.Add(resetInterval)
	if _, err := c.Get(ctx, widget); err != nil {
		t.Fatalf("Get of the kind once served: %v", err)
	}
}
