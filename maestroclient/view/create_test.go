package view_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// sentMaestro records the bundle each Create sends (with the view's write
// id), and runs during, when set, after the create was stored and before
// its answer returns (a status the stream delivers first).
type sentMaestro struct {
	adapter.Maestro
	sent   *workv1.ManifestWork
	during func()
}

func (s *sentMaestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	s.sent = work.DeepCopy()
	w, err := s.Maestro.Create(ctx, consumer, work, read)
	if s.during != nil {
		s.during()
	}
	return w, err
}

// createHarness is a harness whose creates go through the view (as the
// adapter's do) with their sent bundle recorded.
type createHarness struct {
	*harness
	sent *sentMaestro
}

func newCreateHarness(t *testing.T) *createHarness {
	h := newHarness(t)
	s := &sentMaestro{Maestro: h.store}
	h.m = view.Maestro(s, h.view)
	h.view.Subscribed()
	return &createHarness{harness: h, sent: s}
}

// ownCreate creates the bundle through the view; false when the create
// failed.
func (h *createHarness) ownCreate() bool {
	_, err := h.m.Create(context.Background(), consumer, fixture(h.t), adapter.ReadAbsent)
	return err == nil
}

// writeID is the write id the last create sent.
func (h *createHarness) writeID() string {
	if h.sent.sent == nil {
		h.t.Fatal("no create was sent")
	}
	return h.sent.sent.Annotations[bundles.WriteIDAnnotation]
}

// streamed is the bundle as the stream carries the agent's status of it
// (maestroclient TestStreamCarriesTheReadSaveTwoFields): the agent's
// resourceVersion and sdk-go's sequence id, the write id given (the one
// Maestro holds when writeID is ""), the condition typ true.
func (h *createHarness) streamed(writeID, typ string) *workv1.ManifestWork {
	w := h.current()
	w.ResourceVersion = "0"
	w.Annotations["cloudevents.open-cluster-management.io/sequenceid"] = "1866"
	if writeID != "" {
		w.Annotations[bundles.WriteIDAnnotation] = writeID
	}
	return withCondition(w, typ)
}

// agentReports stores the agent's status in Maestro and sends it on the
// stream, as Maestro does; the stream then carries writeID ("" Maestro's).
func (h *createHarness) agentReports(writeID, typ string) {
	w := h.streamed(writeID, typ)
	if err := h.store.SetStatus(consumer, name, w.Status); err != nil {
		h.t.Fatal(err)
	}
	h.view.Status(w)
}

const earlier = "0123456789abcdef0123456789abcdef" // an earlier bundle's write id

// The round after a create (create.go): the agent's first status that
// echoes this process's write id makes the entry, which is then exactly
// what a read returns; nothing else the stream carries does. Every way a
// status may not be the created bundle's, and every event that makes the
// view learn the bundle from a read again, has a row.
func TestOwnCreateMakesTheEntry(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		steps func(h *createHarness)
		// hit: Lookup returns the bundle, and it equals a read of it.
		hit bool
	}{
		{"the create's first status", func(h *createHarness) {
			h.ownCreate()
			h.agentReports("", workv1.WorkApplied)
		}, true},
		{"no status yet: the create alone makes no entry", func(h *createHarness) { h.ownCreate() }, false},
		{"the status arrives before the create's answer", func(h *createHarness) {
			h.sent.during = func() { h.agentReports("", workv1.WorkApplied) }
			h.ownCreate()
		}, true},
		{"an earlier bundle's late status (same uid, generation, fingerprint)", func(h *createHarness) {
			h.ownCreate()
			h.view.Status(h.streamed(earlier, workv1.WorkApplied))
		}, false},
		{"an earlier bundle's late status, then the create's own", func(h *createHarness) {
			h.ownCreate()
			h.view.Status(h.streamed(earlier, workv1.WorkAvailable))
			h.agentReports("", workv1.WorkApplied)
		}, true},
		{"a status without a write id (another writer's bundle)", func(h *createHarness) {
			h.ownCreate()
			w := h.streamed("", workv1.WorkApplied)
			delete(w.Annotations, bundles.WriteIDAnnotation)
			h.view.Status(w)
		}, false},
		{"its own status shows it deleting; a later one makes nothing", func(h *createHarness) {
			h.ownCreate()
			h.view.Status(h.streamed("", workv1.WorkDeleting))
			h.agentReports("", workv1.WorkApplied)
		}, false},
		{"resubscribed before the status", func(h *createHarness) {
			h.ownCreate()
			h.view.Subscribed()
			h.agentReports("", workv1.WorkApplied)
		}, false},
		{"updated before the status (the update forgot it)", func(h *createHarness) {
			h.ownCreate()
			w := h.current()
			d := w.DeepCopy()
			d.Annotations[bundles.FingerprintAnnotation] = fp2
			if _, err := h.m.Update(ctx, consumer, w, d); err != nil {
				t.Fatal(err)
			}
			st := h.streamed("", workv1.WorkApplied)
			st.Generation = 1 // the first generation's late status
			st.Annotations[bundles.WriteIDAnnotation] = h.writeID()
			st.Annotations[bundles.FingerprintAnnotation] = fingerprint(t)
			h.view.Status(st)
		}, false},
		{"deleted by this process before the status", func(h *createHarness) {
			h.ownCreate()
			if err := h.m.Delete(ctx, consumer, name); err != nil {
				t.Fatal(err)
			}
			h.view.Status(h.streamed("", workv1.WorkApplied))
		}, false},
		{"a read's 404 after the create (another replica deleted it)", func(h *createHarness) {
			h.ownCreate()
			st := h.streamed("", workv1.WorkApplied)
			h.view.Observe(h.view.Begin(), consumer, name, nil)
			h.view.Status(st)
		}, false},
		{"the create failed (Maestro may still have taken it)", func(h *createHarness) {
			h.store.FailNext(memmaestro.VerbCreate, 1, adapter.ErrUnavailable)
			if h.ownCreate() {
				t.Fatal("the create did not fail")
			}
			h.create() // Maestro took it after all
			h.view.Status(h.streamed(h.writeID(), workv1.WorkApplied))
		}, false},
		{"read after the create, then its own status", func(h *createHarness) {
			h.ownCreate()
			h.read()
			h.agentReports("", workv1.WorkApplied)
		}, true},
		{"read after the create, then an earlier bundle's late status", func(h *createHarness) {
			h.ownCreate()
			h.read()
			h.view.Status(h.streamed(earlier, workv1.WorkAvailable))
		}, false},
		{"read after the create, an earlier bundle's late status, then its own", func(h *createHarness) {
			h.ownCreate()
			h.read()
			h.view.Status(h.streamed(earlier, workv1.WorkAvailable))
			h.agentReports("", workv1.WorkApplied)
		}, true},
		{"a read begun before the create, answered after the entry, stores nothing", func(h *createHarness) {
			tok := h.view.Begin()
			h.ownCreate()
			h.agentReports("", workv1.WorkApplied)
			old := h.current() // as an earlier bundle of the name was read
			old.Annotations[bundles.WriteIDAnnotation] = earlier
			old.Status = workv1.ManifestWorkStatus{}
			h.view.Observe(tok, consumer, name, old)
		}, true},
		{"a List page begun before the create, answered after the entry, stores nothing", func(h *createHarness) {
			l := h.view.BeginList()
			h.ownCreate()
			h.agentReports("", workv1.WorkApplied)
			old := h.current()
			old.Annotations[bundles.WriteIDAnnotation] = earlier
			old.Status = workv1.ManifestWorkStatus{}
			h.view.Refresh(l, []adapter.BundleKey{{Consumer: consumer, Name: name}}, []*workv1.ManifestWork{old})
		}, true},
		{"its second status updates the entry", func(h *createHarness) {
			h.ownCreate()
			h.agentReports("", workv1.WorkApplied)
			h.agentReports("", workv1.WorkAvailable)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newCreateHarness(t)
			tt.steps(h)
			got, hit := h.view.Lookup(consumer, name)
			if hit != tt.hit {
				t.Fatalf("hit = %v, want %v", hit, tt.hit)
			}
			if !hit {
				return
			}
			read, err := h.store.Get(ctx, consumer, name)
			if err != nil {
				t.Fatal(err)
			}
			if g, r := jsonOf(t, got), jsonOf(t, read); g != r {
				t.Errorf("the entry is not what a read returns:\nentry %s\nread  %s", g, r)
			}
			if got.Annotations[bundles.WriteIDAnnotation] != h.writeID() {
				t.Errorf("the entry's write id %q, want the create's %q", got.Annotations[bundles.WriteIDAnnotation], h.writeID())
			}
			if n := h.view.PendingCreates(); n != 0 {
				t.Errorf("%d creates still pending once the entry follows the bundle's own statuses", n)
			}
		})
	}
}

// Each create sends a write id of its own, the caller's bundle is left as
// it was, and the view remembers no more than it waits for.
func TestCreateSendsAWriteID(t *testing.T) {
	h := newCreateHarness(t)
	want := fixture(t)
	work := fixture(t)
	h.ownCreate()
	first := h.writeID()
	if _, err := h.m.Create(context.Background(), consumer, work, adapter.ReadAbsent); err == nil {
		t.Fatal("the second create of the same name succeeded")
	}
	second := h.writeID()
	if len(first) != 32 || len(second) != 32 || first == second {
		t.Errorf("write ids %q and %q: want two different 32-digit ids", first, second)
	}
	if !reflect.DeepEqual(work, want) {
		t.Errorf("Create changed the caller's bundle: %+v", work.Annotations)
	}
	if n := h.view.PendingCreates(); n != 0 {
		t.Errorf("%d creates pending, want 0: the failed second create forgets the name, the first's write id with it", n)
	}
}

// A pending create whose status never comes (no agent) is swept past
// MaxAge, as entries are.
func TestPendingCreateIsSwept(t *testing.T) {
	h := newCreateHarness(t)
	h.ownCreate()
	if n := h.view.PendingCreates(); n != 1 {
		t.Fatalf("%d pending creates after one create, want 1", n)
	}
	h.now = h.now.Add(2 * time.Minute)
	h.view.Forget(consumer, "another") // any change sweeps when the last sweep is old
	if n := h.view.PendingCreates(); n != 0 {
		t.Errorf("%d pending creates past MaxAge, want 0", n)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fingerprint is the fixture's fingerprint annotation.
func fingerprint(t *testing.T) string { return fixture(t).Annotations[bundles.FingerprintAnnotation] }
