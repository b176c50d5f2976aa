package memmaestro

import (
	"context"
	"errors"
	"fmt"
	"testing"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func TestFailNext(t *testing.T) {
	type step struct {
		verb    string
		wantErr bool
	}
	tests := []struct {
		name   string
		arm    func(s *Store)
		steps  []step
		finale bool // ClearFaults before the last step
	}{
		{
			name: "any verb, twice",
			arm:  func(s *Store) { s.FailNext("", 2, adapter.ErrUnavailable) },
			steps: []step{
				{VerbGet, true}, {VerbUpdate, true}, {VerbGet, false}, {VerbDelete, false},
			},
		},
		{
			name: "one verb",
			arm:  func(s *Store) { s.FailNext(VerbUpdate, 1, adapter.ErrUnavailable) },
			steps: []step{
				{VerbGet, false}, {VerbCreate, false}, {VerbUpdate, true}, {VerbUpdate, false},
			},
		},
		{
			name: "until cleared",
			arm:  func(s *Store) { s.FailNext(VerbGet, -1, adapter.ErrUnavailable) },
			steps: []step{
				{VerbGet, true}, {VerbGet, true}, {VerbUpdate, false}, {VerbGet, true}, {VerbGet, false},
			},
			finale: true,
		},
		{
			name: "rules in order",
			arm: func(s *Store) {
				s.FailNext(VerbGet, 1, adapter.ErrUnavailable)
				s.FailNext("", 1, adapter.ErrUnavailable)
			},
			steps: []step{{VerbDelete, true}, {VerbGet, true}, {VerbGet, false}},
		},
		{
			name:  "zero does nothing",
			arm:   func(s *Store) { s.FailNext("", 0, adapter.ErrUnavailable) },
			steps: []step{{VerbGet, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(Options{})
			tt.arm(s)
			for i, st := range tt.steps {
				if tt.finale && i == len(tt.steps)-1 {
					s.ClearFaults()
				}
				call := prepareVerb(s, st.verb, fmt.Sprintf("w%d", i))
				before := snapshot(t, s)
				err := call()
				if got := errors.Is(err, adapter.ErrUnavailable); got != st.wantErr {
					t.Fatalf("step %d (%s): err %v, want injected=%v", i, st.verb, err, st.wantErr)
				}
				if st.wantErr && snapshot(t, s) != before {
					t.Fatalf("step %d (%s): a failed call changed the state", i, st.verb)
				}
			}
			if n := len(s.Calls()); n != len(tt.steps) {
				t.Errorf("recorded %d calls, want %d (failed calls count)", n, len(tt.steps))
			}
		})
	}
}

// prepareVerb readies a call of verb on a fresh name that only an injected
// fault can make fail: the work exists (stored behind the recorder's back)
// unless verb is create.
func prepareVerb(s *Store, verb, name string) func() error {
	ctx := context.Background()
	if verb != VerbCreate {
		s.mu.Lock()
		w, _ := s.newWork("c1", work(name, "a"))
		s.works[key{"c1", name}] = w
		s.mu.Unlock()
	}
	return func() error {
		switch verb {
		case VerbCreate:
			_, err := s.Create(ctx, "c1", work(name, "a"), adapter.Unread)
			return err
		case VerbGet:
			_, err := s.Get(ctx, "c1", name)
			return err
		case VerbUpdate:
			_, err := s.Update(ctx, "c1", nil, work(name, "b"))
			return err
		case VerbDelete:
			return s.Delete(ctx, "c1", name)
		}
		return fmt.Errorf("unknown verb %q", verb)
	}
}

func TestFaultErrorIsWrapped(t *testing.T) {
	s, _ := newTestStore(Options{})
	custom := errors.New("boom")
	s.FailNext(VerbCreate, 1, fmt.Errorf("%w: %w", adapter.ErrInvalid, custom))
	_, err := s.Create(context.Background(), "c1", work("w1", "a"), adapter.Unread)
	if !errors.Is(err, adapter.ErrInvalid) || !errors.Is(err, custom) {
		t.Fatalf("err = %v, want it to wrap the injected error", err)
	}
	if _, err := s.Get(context.Background(), "c1", "w1"); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("a failed Create stored the work: Get err %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	s, _ := newTestStore(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Create(ctx, "c1", work("w1", "a"), adapter.Unread)
	if !errors.Is(err, adapter.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Create with a canceled context: %v, want ErrUnavailable and context.Canceled", err)
	}
	if len(s.Works()) != 0 {
		t.Fatalf("a canceled Create stored a work")
	}
}

func TestIntercept(t *testing.T) {
	// A second replica deletes the work between our Get and our Update.
	var s *Store
	s, _ = newTestStore(Options{Intercept: func(ctx context.Context, c Call) error {
		if c.Verb == VerbUpdate {
			return s.Delete(ctx, c.Consumer, c.Name)
		}
		return nil
	}})
	mustCreate(t, s, "c1", work("w1", "a"))
	observed := mustGet(t, s, "c1", "w1")
	_, err := s.Update(context.Background(), "c1", observed, work("w1", "b"))
	if !errors.Is(err, adapter.ErrUnderDeletion) {
		t.Fatalf("Update after a racing Delete: %v, want ErrUnderDeletion", err)
	}
	want := []Call{
		{VerbCreate, "c1", "w1"}, {VerbGet, "c1", "w1"}, {VerbUpdate, "c1", "w1"}, {VerbDelete, "c1", "w1"},
	}
	if got := s.Calls(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Calls = %v, want %v", got, want)
	}

	// An interceptor error is returned as is and the call does nothing.
	sentinel := errors.New("intercepted")
	s2, _ := newTestStore(Options{Intercept: func(context.Context, Call) error { return sentinel }})
	if _, err := s2.Create(context.Background(), "c1", work("w1", "a"), adapter.Unread); err != sentinel {
		t.Fatalf("Create: %v, want the interceptor's error", err)
	}
	if len(s2.Works()) != 0 {
		t.Fatalf("an intercepted Create stored a work")
	}
}

func TestCallsRecordedInOrder(t *testing.T) {
	s, _ := newTestStore(Options{Consumers: []string{"c1"}})
	ctx := context.Background()
	mustCreate(t, s, "c1", work("w1", "a"))
	_, _ = s.Get(ctx, "c1", "w1")
	_, _ = s.Update(ctx, "c1", nil, work("w1", "b"))
	_ = s.Delete(ctx, "c1", "w1")
	_, _ = s.Create(ctx, "c2", work("w2", "a"), adapter.Unread) // fails: still recorded
	_, _ = s.Get(ctx, "c1", "missing")
	_, _ = s.Create(ctx, "c1", (*workv1.ManifestWork)(nil), adapter.Unread)
	want := []Call{
		{VerbCreate, "c1", "w1"}, {VerbGet, "c1", "w1"}, {VerbUpdate, "c1", "w1"},
		{VerbDelete, "c1", "w1"}, {VerbCreate, "c2", "w2"}, {VerbGet, "c1", "missing"},
		{VerbCreate, "c1", ""},
	}
	got := s.Calls()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Calls =\n%v\nwant\n%v", got, want)
	}
	got[0].Verb = "mutated"
	if s.Calls()[0].Verb != VerbCreate {
		t.Fatalf("Calls returned the Store's own slice")
	}
	s.ResetCalls()
	if n := len(s.Calls()); n != 0 {
		t.Fatalf("after ResetCalls: %d calls", n)
	}
	_, _ = s.Get(ctx, "c1", "w1")
	if got := s.Calls(); len(got) != 1 || got[0] != (Call{VerbGet, "c1", "w1"}) {
		t.Fatalf("after ResetCalls and a Get: %v", got)
	}
}
