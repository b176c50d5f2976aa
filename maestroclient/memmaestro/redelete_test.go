package memmaestro

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Redelete is recorded, keeps the first deletionTimestamp, is confirmed at
// once only under DeleteImmediate for a work no longer held, deletes a work
// not being deleted, and answers ErrNotFound for a missing one.
func TestRedelete(t *testing.T) {
	tests := []struct {
		name      string
		behavior  string
		deleted   bool // Delete first (held: stuck)
		release   bool // unstick before Redelete
		missing   bool
		wantGone  bool
		wantError error
	}{
		{name: "pending: stays, timestamp kept", deleted: true},
		{name: "immediate, still held: stays", behavior: DeleteImmediate, deleted: true},
		{name: "immediate, released: gone", behavior: DeleteImmediate, deleted: true, release: true, wantGone: true},
		{name: "not being deleted: deleted", wantGone: false},
		{name: "missing", missing: true, wantError: adapter.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
			s := New(Options{Clock: func() time.Time { return now }, DeleteBehavior: tt.behavior})
			if !tt.missing {
				if _, err := s.Create(ctx, "c1", work("w", "v1"), adapter.Unread); err != nil {
					t.Fatal(err)
				}
			}
			s.SetStuck("c1", "w", true)
			if tt.deleted {
				if err := s.Delete(ctx, "c1", "w"); err != nil {
					t.Fatal(err)
				}
			}
			first, _ := s.Get(ctx, "c1", "w")
			if tt.release {
				s.SetStuck("c1", "w", false)
			}
			now = now.Add(time.Minute)
			err := s.Redelete(ctx, "c1", "w")
			if calls := s.Calls(); calls[len(calls)-1].Verb != VerbRedelete {
				t.Errorf("last call %v, want a redelete", calls[len(calls)-1])
			}
			if !errors.Is(err, tt.wantError) || (err != nil && tt.wantError == nil) {
				t.Fatalf("Redelete = %v, want %v", err, tt.wantError)
			}
			if tt.missing {
				return
			}
			got, err := s.Get(ctx, "c1", "w")
			if gone := errors.Is(err, adapter.ErrNotFound); gone != tt.wantGone {
				t.Fatalf("gone after Redelete = %v (%v), want %v", gone, err, tt.wantGone)
			}
			switch {
			case tt.wantGone:
			case got.DeletionTimestamp == nil:
				t.Error("not being deleted after Redelete")
			case tt.deleted && !got.DeletionTimestamp.Equal(first.DeletionTimestamp):
				t.Errorf("deletionTimestamp %v after Redelete, want the first %v", got.DeletionTimestamp, first.DeletionTimestamp)
			}
		})
	}
}
