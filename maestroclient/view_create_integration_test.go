package maestroclient_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// The round after a create on the real server (issue 47): a bundle
// created through the view, with its write id, gets its entry from the
// agent's status on the stream, with no read; the entry is exactly what a
// read returns. A recreation under the same name (same uid, generation 1)
// gets its entry from its own status, with its own write id. Simulated
// agent; e2e TestStreamEntryIsTheRead does the same on the real one.
func TestOwnCreateEntryIsTheReadRealMaestro(t *testing.T) {
	s := requireServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	consumer := register(t, s, "owncreate")
	startAgent(t, s, consumer, nil)
	restURL, requests := restCounter(t, s)
	v := view.New(view.Options{MaxAge: time.Minute})
	sink := stacktest.NewViewSink(v)
	c := newClient(t, s, func(o *maestroclient.Options) { o.Status = sink; o.HTTPURL = restURL })
	sink.WaitSubscribed(t, 30*time.Second)
	m := view.Maestro(c, v)
	name := unique("owncreate")
	t.Cleanup(func() { _ = c.Delete(context.Background(), consumer, name) })

	var ids []string
	for round := range 2 {
		w := bundle(name, "v1")
		w.Annotations = map[string]string{bundles.FingerprintAnnotation: "fp-1"}
		before := requests.Load()
		if _, err := m.Create(ctx, consumer, w, adapter.ReadAbsent); err != nil {
			t.Fatalf("round %d: create: %v", round, err)
		}
		var hit *workv1.ManifestWork
		eventually(t, 30*time.Second, "an entry made from the stream", func() error {
			var ok bool
			if hit, ok = v.Lookup(consumer, name); !ok {
				return errors.New("not yet")
			}
			return nil
		})
		if n := requests.Load() - before; n != 0 {
			t.Errorf("round %d: %d REST requests between the create and its entry, want 0", round, n)
		}
		read, err := c.Get(ctx, consumer, name)
		if err != nil {
			t.Fatal(err)
		}
		if g, r := stacktest.JSONValue(t, hit), stacktest.JSONValue(t, read); !reflect.DeepEqual(g, r) {
			t.Errorf("round %d: the entry made from the stream is not the read:\nentry %v\nread  %v", round, g, r)
		}
		ids = append(ids, hit.Annotations[bundles.WriteIDAnnotation])
		if round == 0 {
			deleteUntilGone(t, ctx, m, c, consumer, name)
		}
	}
	if ids[0] == "" || ids[0] == ids[1] {
		t.Errorf("write ids of the two bundles %q, want two different ones", ids)
	}
	if n := v.PendingCreates(); n != 0 {
		t.Errorf("%d creates still pending after both made their entries", n)
	}
}

// deleteUntilGone deletes the bundle through m and waits for Maestro's 404.
func deleteUntilGone(t *testing.T, ctx context.Context, m adapter.Maestro, c *maestroclient.Client, consumer, name string) {
	t.Helper()
	if err := m.Delete(ctx, consumer, name); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the bundle gone", func() error {
		_, err := c.Get(ctx, consumer, name)
		if errors.Is(err, adapter.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("not yet: %v", err)
	})
}
