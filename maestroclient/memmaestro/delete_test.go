package memmaestro

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func TestSoftDeleteUntilConfirmed(t *testing.T) {
	s, clk := newTestStore(Options{})
	mustCreate(t, s, "c1", work("w1", "a"))
	clk.Advance(90 * time.Second)
	mustDelete(t, s, "c1", "w1")

	got := mustGet(t, s, "c1", "w1")
	want := metav1.NewTime(t0.Add(90 * time.Second).Truncate(time.Second))
	if got.DeletionTimestamp == nil || !got.DeletionTimestamp.Equal(&want) {
		t.Fatalf("deletionTimestamp = %v, want %v", got.DeletionTimestamp, want)
	}
	cond := meta.FindStatusCondition(got.Status.Conditions, workv1.WorkDeleting)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonWorkDeleting {
		t.Fatalf("Deleting condition = %+v, want True/%s", cond, ReasonWorkDeleting)
	}
	// Still there however long nobody confirms.
	clk.Advance(time.Hour)
	mustGet(t, s, "c1", "w1")

	if err := s.Confirm("c1", "w1"); err != nil {
		t.Fatalf("Confirm: %v", err)
	}
	if _, err := s.Get(context.Background(), "c1", "w1"); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("Get after Confirm: %v, want ErrNotFound", err)
	}
}

func TestDeleteBehaviors(t *testing.T) {
	tests := []struct {
		name         string
		behavior     string
		stuck        bool
		wantPending  bool // visible with deletionTimestamp right after Delete
		wantAfterAll bool // still visible after ConfirmAll
	}{
		{name: "default is pending", behavior: "", wantPending: true},
		{name: "pending", behavior: DeletePending, wantPending: true},
		{name: "pending stuck", behavior: DeletePending, stuck: true, wantPending: true, wantAfterAll: true},
		{name: "immediate", behavior: DeleteImmediate},
		{name: "immediate stuck", behavior: DeleteImmediate, stuck: true, wantPending: true, wantAfterAll: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(Options{DeleteBehavior: tt.behavior})
			mustCreate(t, s, "c1", work("w1", "a"))
			mustCreate(t, s, "c1", work("other", "a"))
			s.SetStuck("c1", "w1", tt.stuck)
			mustDelete(t, s, "c1", "w1")

			got, err := s.Get(context.Background(), "c1", "w1")
			switch {
			case tt.wantPending && (err != nil || got.DeletionTimestamp == nil):
				t.Fatalf("after Delete: %v, %v; want the work with a deletionTimestamp", got, err)
			case !tt.wantPending && !errors.Is(err, adapter.ErrNotFound):
				t.Fatalf("after Delete: err %v, want ErrNotFound", err)
			}

			wantN := 0
			if tt.wantPending && !tt.wantAfterAll {
				wantN = 1
			}
			if n := s.ConfirmAll(); n != wantN {
				t.Errorf("ConfirmAll removed %d works, want %d", n, wantN)
			}
			_, err = s.Get(context.Background(), "c1", "w1")
			if tt.wantAfterAll != (err == nil) {
				t.Errorf("after ConfirmAll: err %v, want present=%v", err, tt.wantAfterAll)
			}
			if w := mustGet(t, s, "c1", "other"); w.DeletionTimestamp != nil {
				t.Errorf("an undeleted work got deletionTimestamp %v", w.DeletionTimestamp)
			}
		})
	}
}

func TestStuckReleasedByConfirm(t *testing.T) {
	s, _ := newTestStore(Options{DeleteBehavior: DeleteImmediate})
	s.SetStuck("c1", "w1", true) // before the work exists
	mustCreate(t, s, "c1", work("w1", "a"))
	mustDelete(t, s, "c1", "w1")
	s.ConfirmAll()
	mustGet(t, s, "c1", "w1")
	if err := s.Confirm("c1", "w1"); err != nil {
		t.Fatalf("Confirm of a stuck work: %v", err)
	}
	if _, err := s.Get(context.Background(), "c1", "w1"); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("Get after Confirm: %v, want ErrNotFound", err)
	}
	// Unmarked: immediate again.
	s.SetStuck("c1", "w1", false)
	mustCreate(t, s, "c1", work("w1", "b"))
	mustDelete(t, s, "c1", "w1")
	if _, err := s.Get(context.Background(), "c1", "w1"); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("Get after Delete of an unstuck work under immediate: %v, want ErrNotFound", err)
	}
}

func TestDeleteMissing(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *Store)
	}{
		{name: "never created", setup: func(*testing.T, *Store) {}},
		{name: "confirmed", setup: func(t *testing.T, s *Store) {
			mustCreate(t, s, "c1", work("w1", "a"))
			mustDelete(t, s, "c1", "w1")
			if err := s.Confirm("c1", "w1"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "other consumer", setup: func(t *testing.T, s *Store) { mustCreate(t, s, "c2", work("w1", "a")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(Options{})
			tt.setup(t, s)
			if err := s.Delete(context.Background(), "c1", "w1"); !errors.Is(err, adapter.ErrNotFound) {
				t.Fatalf("Delete: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestDeleteWhileDeletingKeepsTimestamp(t *testing.T) {
	s, clk := newTestStore(Options{})
	mustCreate(t, s, "c1", work("w1", "a"))
	mustDelete(t, s, "c1", "w1")
	before := snapshot(t, s)
	clk.Advance(time.Minute)
	mustDelete(t, s, "c1", "w1")
	if after := snapshot(t, s); after != before {
		t.Fatalf("second Delete changed the state:\nbefore %s\nafter  %s", before, after)
	}
	got := mustGet(t, s, "c1", "w1")
	if !got.DeletionTimestamp.Time.Equal(t0.Truncate(time.Second)) {
		t.Fatalf("deletionTimestamp = %v, want the first one %v", got.DeletionTimestamp, t0)
	}
}

func TestConfirmErrors(t *testing.T) {
	s, _ := newTestStore(Options{})
	mustCreate(t, s, "c1", work("w1", "a"))
	if err := s.Confirm("c1", "nope"); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("Confirm of a missing work: %v, want ErrNotFound", err)
	}
	if err := s.Confirm("c1", "w1"); err == nil {
		t.Errorf("Confirm of a work not being deleted succeeded")
	}
	mustGet(t, s, "c1", "w1")
}
