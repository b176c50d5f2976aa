package maestroclient_test

import (
	"errors"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// TestErrors checks the sentinel of each refusal the real server makes.
func TestErrors(t *testing.T) {
	s := requireServer(t)
	c := newClient(t, s, nil)
	consumer := register(t, s, "err")
	existing := unique("b")
	if _, err := c.Create(t.Context(), consumer, bundle(existing, "v1"), adapter.Unread); err != nil {
		t.Fatalf("Create: %v", err)
	}
	observed, err := c.Get(t.Context(), consumer, existing)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if _, err := c.Update(t.Context(), consumer, observed, bundle(existing, "v2")); err != nil {
		t.Fatalf("Update: %v", err)
	}
	unknown := unique("nobody")
	noName := bundle(unique("b"), "v1")
	noName.Spec.Workload.Manifests[0].Raw = []byte(`{"apiVersion":"v1","kind":"ConfigMap"}`)

	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"get missing", func() error { _, err := c.Get(t.Context(), consumer, unique("b")); return err }, adapter.ErrNotFound},
		{"get unknown consumer", func() error { _, err := c.Get(t.Context(), unknown, "b"); return err }, adapter.ErrNotFound},
		{"create unknown consumer", func() error {
			_, err := c.Create(t.Context(), unknown, bundle(unique("b"), "v1"), adapter.Unread)
			return err
		}, adapter.ErrConsumerNotRegistered},
		{"create existing", func() error {
			_, err := c.Create(t.Context(), consumer, bundle(existing, "v1"), adapter.Unread)
			return err
		}, adapter.ErrAlreadyExists},
		{"create manifest without name", func() error { _, err := c.Create(t.Context(), consumer, noName, adapter.Unread); return err }, adapter.ErrInvalid},
		{"create bad bundle name", func() error {
			_, err := c.Create(t.Context(), consumer, bundle("Not_A_Name", "v1"), adapter.Unread)
			return err
		}, adapter.ErrInvalid},
		{"update from stale read", func() error {
			_, err := c.Update(t.Context(), consumer, observed, bundle(existing, "v3"))
			return err
		}, adapter.ErrUnavailable},
		{"update missing", func() error {
			gone := observed.DeepCopy()
			gone.Name = unique("b")
			_, err := c.Update(t.Context(), consumer, gone, bundle(gone.Name, "v3"))
			return err
		}, adapter.ErrNotFound},
		{"update never created", func() error {
			missing := bundle(unique("b"), "v1") // no generation: not read from Maestro
			_, err := c.Update(t.Context(), consumer, missing, missing)
			return err
		}, adapter.ErrNotFound},
		{"delete missing", func() error { return c.Delete(t.Context(), consumer, unique("b")) }, adapter.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			t.Logf("%v", err)
		})
	}

	// The unregistered consumer's create left nothing behind.
	if _, err := c.Get(t.Context(), unknown, "b"); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("Get after refused create: %v", err)
	}
}
