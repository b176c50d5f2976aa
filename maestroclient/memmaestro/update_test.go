package memmaestro

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func TestUpdateReplacesSpecAndMetadata(t *testing.T) {
	s, clk := newTestStore(Options{})
	created := mustCreate(t, s, "c1", work("w1", "a"))
	status := workv1.ManifestWorkStatus{Conditions: []metav1.Condition{{
		Type: "Applied", Status: metav1.ConditionTrue, Reason: "R", LastTransitionTime: metav1.NewTime(t0),
	}}}
	if err := s.SetStatus("c1", "w1", status); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)

	desired := work("w1", "b")
	desired.Labels = map[string]string{"only": "this"}
	desired.Annotations = nil
	desired.Spec.Workload.Manifests = append(desired.Spec.Workload.Manifests, cm("second", "b"))
	desired.Spec.DeleteOption = &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}
	desired.UID = "ignored"
	got, err := s.Update(context.Background(), "c1", created, desired)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	stored := mustGet(t, s, "c1", "w1")
	for _, w := range []*workv1.ManifestWork{got, stored} {
		checks := []struct {
			what      string
			got, want any
		}{
			{"labels", len(w.Labels) == 1 && w.Labels["only"] == "this", true},
			{"annotations", len(w.Annotations), 0},
			{"manifests", len(w.Spec.Workload.Manifests), 2},
			{"data", data(t, w), "b"},
			{"deleteOption", w.Spec.DeleteOption != nil, true},
			{"generation", w.Generation, int64(2)},
			{"resourceVersion", w.ResourceVersion, "2"},
			{"uid", w.UID, created.UID},
			{"creationTimestamp", w.CreationTimestamp.Time, created.CreationTimestamp.Time},
			{"status kept", len(w.Status.Conditions), 1},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
			}
		}
	}

	// observed may be nil; the name comes from desired.
	if _, err := s.Update(context.Background(), "c1", nil, work("w1", "c")); err != nil {
		t.Fatalf("Update without observed: %v", err)
	}
	if g := mustGet(t, s, "c1", "w1").Generation; g != 3 {
		t.Errorf("generation after a second Update = %d, want 3", g)
	}
}

func TestUpdateErrors(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, s *Store)
		observed *workv1.ManifestWork
		desired  func() *workv1.ManifestWork
		want     error
	}{
		{
			name:    "missing",
			desired: func() *workv1.ManifestWork { return work("nope", "b") },
			want:    adapter.ErrNotFound,
		},
		{
			name: "confirmed deleted",
			setup: func(t *testing.T, s *Store) {
				mustDelete(t, s, "c1", "w1")
				if err := s.Confirm("c1", "w1"); err != nil {
					t.Fatal(err)
				}
			},
			desired: func() *workv1.ManifestWork { return work("w1", "b") },
			want:    adapter.ErrNotFound,
		},
		{
			name:    "deleting",
			setup:   func(t *testing.T, s *Store) { mustDelete(t, s, "c1", "w1") },
			desired: func() *workv1.ManifestWork { return work("w1", "b") },
			want:    adapter.ErrUnderDeletion,
		},
		{name: "nil desired", desired: func() *workv1.ManifestWork { return nil }, want: adapter.ErrInvalid},
		{
			name:     "names disagree",
			observed: work("w1", "a"),
			desired:  func() *workv1.ManifestWork { return work("w2", "b") },
			want:     adapter.ErrInvalid,
		},
		{
			name: "namespace differs",
			desired: func() *workv1.ManifestWork {
				w := work("w1", "b")
				w.Namespace = "c2"
				return w
			},
			want: adapter.ErrInvalid,
		},
		{
			name: "no manifests",
			desired: func() *workv1.ManifestWork {
				w := work("w1", "b")
				w.Spec.Workload.Manifests = nil
				return w
			},
			want: adapter.ErrInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(Options{})
			mustCreate(t, s, "c1", work("w1", "a"))
			if tt.setup != nil {
				tt.setup(t, s)
			}
			before := snapshot(t, s)
			got, err := s.Update(context.Background(), "c1", tt.observed, tt.desired())
			if !errors.Is(err, tt.want) {
				t.Fatalf("Update: %v, want %v", err, tt.want)
			}
			if got != nil {
				t.Errorf("Update returned a work on error")
			}
			if after := snapshot(t, s); after != before {
				t.Errorf("a failed Update changed the state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}
