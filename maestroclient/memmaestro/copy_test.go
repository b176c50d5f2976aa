package memmaestro

import (
	"context"
	"fmt"
	"sync"
	"testing"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// mutate scribbles over every reference-typed part of w.
func mutate(w *workv1.ManifestWork) {
	w.Labels["rev"] = "mutated"
	w.Annotations["note"] = "mutated"
	w.Spec.Workload.Manifests[0].Raw[0] = 'X'
	w.Spec.Workload.Manifests = append(w.Spec.Workload.Manifests, cm("extra", "x"))
	w.Name = "mutated"
	if w.DeletionTimestamp != nil {
		w.DeletionTimestamp.Time = w.DeletionTimestamp.Add(1e12)
	}
	if len(w.Status.Conditions) > 0 {
		w.Status.Conditions[0].Reason = "Mutated"
	}
}

func TestReturnsDeepCopies(t *testing.T) {
	tests := []struct {
		name string
		// get returns a work the caller then mutates.
		get func(t *testing.T, s *Store) *workv1.ManifestWork
	}{
		{"create input", func(t *testing.T, s *Store) *workv1.ManifestWork {
			in := work("w2", "a")
			mustCreate(t, s, "c1", in)
			return in
		}},
		{"create result", func(t *testing.T, s *Store) *workv1.ManifestWork {
			return mustCreate(t, s, "c1", work("w2", "a"))
		}},
		{"get result", func(t *testing.T, s *Store) *workv1.ManifestWork { return mustGet(t, s, "c1", "w1") }},
		{"get result while deleting", func(t *testing.T, s *Store) *workv1.ManifestWork {
			mustDelete(t, s, "c1", "w1")
			return mustGet(t, s, "c1", "w1")
		}},
		{"update input", func(t *testing.T, s *Store) *workv1.ManifestWork {
			in := work("w1", "b")
			if _, err := s.Update(context.Background(), "c1", nil, in); err != nil {
				t.Fatal(err)
			}
			return in
		}},
		{"update result", func(t *testing.T, s *Store) *workv1.ManifestWork {
			got, err := s.Update(context.Background(), "c1", nil, work("w1", "b"))
			if err != nil {
				t.Fatal(err)
			}
			return got
		}},
		{"works", func(t *testing.T, s *Store) *workv1.ManifestWork { return s.Works()[0] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(Options{AutoStatus: true})
			mustCreate(t, s, "c1", work("w1", "a"))
			w := tt.get(t, s)
			before := snapshot(t, s)
			mutate(w)
			if after := snapshot(t, s); after != before {
				t.Fatalf("mutating a returned or given work changed the Store:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	s, clk := newTestStore(Options{AutoStatus: true, DeleteBehavior: DeletePending})
	const goroutines, rounds = 8, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			consumer := fmt.Sprintf("c%d", g%3) // shared consumers
			for i := range rounds {
				name := fmt.Sprintf("g%d-w%d", g, i)
				w, err := s.Create(ctx, consumer, work(name, "a"), adapter.Unread)
				if err != nil {
					t.Errorf("Create %s: %v", name, err)
					return
				}
				w.Labels["rev"] = "b"
				if _, err := s.Update(ctx, consumer, w, w); err != nil {
					t.Errorf("Update %s: %v", name, err)
				}
				if err := s.Delete(ctx, consumer, name); err != nil {
					t.Errorf("Delete %s: %v", name, err)
				}
				// Everyone races on one shared name, too.
				_, _ = s.Create(ctx, "shared", work("same", "x"), adapter.Unread)
				_, _ = s.Get(ctx, "shared", "same")
				_ = s.Delete(ctx, "shared", "same")
				s.ConfirmAll()
				clk.Advance(1)
				_ = s.Calls()
				_ = s.Works()
			}
		}()
	}
	wg.Wait()
	s.ConfirmAll()
	if left := s.Works(); len(left) != 0 {
		t.Errorf("%d works left after every deletion was confirmed", len(left))
	}
	if got, want := len(s.Calls()), goroutines*rounds*6; got != want {
		t.Errorf("recorded %d calls, want %d", got, want)
	}
}
