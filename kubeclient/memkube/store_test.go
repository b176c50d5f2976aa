package memkube_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

func object(apiVersion, kind, ns, name string, fields map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name}
	if ns != "" {
		meta["namespace"] = ns
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	for k, v := range fields {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}

// What the contract suite does not pin down but the API server does:
// generation counts changes outside metadata and status, a Namespace is
// created Active and takes its objects with it, HoldNamespaces keeps it
// Terminating, a namespaced kind needs a namespace, and calls are counted.
func TestStoreModel(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		run  func(t *testing.T, s *memkube.Store)
		opts memkube.Options
	}{
		{"generation bumps on spec change only", func(t *testing.T, s *memkube.Store) {
			cm := object("v1", "ConfigMap", "a", "c", map[string]any{"data": map[string]any{"k": "1"}})
			mustDo(t, func() error { _, err := s.Create(ctx, cm); return err })
			cm.SetLabels(map[string]string{"l": "1"})
			got, err := s.Apply(ctx, cm)
			if err != nil || got.GetGeneration() != 1 {
				t.Fatalf("label change: generation %d, err %v; want 1", got.GetGeneration(), err)
			}
			cm.Object["data"] = map[string]any{"k": "2"}
			if got, err = s.Apply(ctx, cm); err != nil || got.GetGeneration() != 2 {
				t.Fatalf("data change: generation %d, err %v; want 2", got.GetGeneration(), err)
			}
			if s.Count(memkube.VerbApply) != 2 || s.Writes() != 3 {
				t.Errorf("counted %d applies, %d writes; want 2, 3", s.Count(memkube.VerbApply), s.Writes())
			}
		}, memkube.Options{}},
		{"namespace created active, deleted with its objects", func(t *testing.T, s *memkube.Store) {
			ns, err := s.Create(ctx, object("v1", "Namespace", "ignored", "a", nil))
			if err != nil || ns.GetNamespace() != "" || ns.Object["status"].(map[string]any)["phase"] != "Active" {
				t.Fatalf("created %v, err %v: want cluster-scoped and Active", ns, err)
			}
			mustDo(t, func() error { _, err := s.Create(ctx, object("v1", "ConfigMap", "a", "c", nil)); return err })
			mustDo(t, func() error {
				return s.Delete(ctx, adapter.KubeRef{APIVersion: "v1", Kind: "Namespace", Name: "a"}, "Foreground")
			})
			if _, err := s.Get(ctx, adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "c"}); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("object of a deleted namespace: %v, want ErrNotFound", err)
			}
		}, memkube.Options{}},
		{"held namespace terminating until released", func(t *testing.T, s *memkube.Store) {
			ref := adapter.KubeRef{APIVersion: "v1", Kind: "Namespace", Name: "a"}
			mustDo(t, func() error { _, err := s.Create(ctx, object("v1", "Namespace", "", "a", nil)); return err })
			mustDo(t, func() error { return s.Delete(ctx, ref, "") })
			got, err := s.Get(ctx, ref)
			if err != nil || got.GetDeletionTimestamp() == nil || !got.GetDeletionTimestamp().Time.Equal(now) {
				t.Fatalf("held namespace: %v, err %v; want deletionTimestamp %v", got, err, now)
			}
			if _, err := s.Create(ctx, object("v1", "Namespace", "", "a", nil)); !errors.Is(err, adapter.ErrAlreadyExists) {
				t.Errorf("create while terminating: %v, want ErrAlreadyExists", err)
			}
			mustDo(t, func() error { return s.RemoveFinalizers(ctx, ref) })
			if _, err := s.Get(ctx, ref); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("released namespace: %v, want ErrNotFound", err)
			}
		}, memkube.Options{HoldNamespaces: true}},
		{"namespaced kind without namespace is invalid", func(t *testing.T, s *memkube.Store) {
			if _, err := s.Create(ctx, object("v1", "ConfigMap", "", "c", nil)); !errors.Is(err, adapter.ErrInvalid) {
				t.Errorf("create: %v, want ErrInvalid", err)
			}
		}, memkube.Options{}},
		{"any kind when asked, scoped by the request", func(t *testing.T, s *memkube.Store) {
			cr := object("example.com/v1", "Widget", "a", "w", nil)
			mustDo(t, func() error { _, err := s.Create(ctx, cr); return err })
			got, err := s.List(ctx, adapter.KubeRef{APIVersion: "example.com/v1", Kind: "Widget"}, nil)
			if err != nil || len(got) != 1 {
				t.Errorf("list: %d objects, err %v; want the widget", len(got), err)
			}
		}, memkube.Options{AnyKind: true}},
		{"unknown kind refused by default", func(t *testing.T, s *memkube.Store) {
			if _, err := s.Create(ctx, object("example.com/v1", "Widget", "a", "w", nil)); !errors.Is(err, adapter.ErrInvalid) {
				t.Errorf("create: %v, want ErrInvalid", err)
			}
		}, memkube.Options{}},
		{"state saved and loaded", func(t *testing.T, s *memkube.Store) {
			mustDo(t, func() error { _, err := s.Create(ctx, object("batch/v1", "Job", "a", "j", nil)); return err })
			var buf bytes.Buffer
			mustDo(t, func() error { return s.SaveState(&buf) })
			again, err := memkube.LoadState(&buf, memkube.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := again.Get(ctx, adapter.KubeRef{APIVersion: "batch/v1", Kind: "Job", Namespace: "a", Name: "j"})
			if err != nil || got.GetUID() == "" {
				t.Errorf("loaded: %v, err %v", got, err)
			}
			if _, err := memkube.LoadState(bytes.NewBufferString(`{"objects":[{"apiVersion":"x/v1","kind":"Nope","metadata":{"name":"n"}}]}`), memkube.Options{}); !errors.Is(err, adapter.ErrInvalid) {
				t.Errorf("unknown kind in a state: %v, want ErrInvalid", err)
			}
		}, memkube.Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Clock = func() time.Time { return now }
			tt.run(t, memkube.New(tt.opts))
		})
	}
}

func mustDo(t *testing.T, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatal(err)
	}
}
