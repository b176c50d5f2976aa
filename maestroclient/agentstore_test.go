package maestroclient_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/common"
	agentclient "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/agent/client"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/agent/codec"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/payload"
	sourcecodec "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/source/codec"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/store"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/generic"
	cetypes "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/types"
)

// TestAgentStoreRedeleteKeepsAMissingFinalizer is the evidence, on sdk-go's
// own agent codec and work store (no servers), for why a delete re-sent
// through Maestro cannot heal a work whose finalizer the agent's store lost,
// while an agent restart can. Every decoded delete event carries the
// finalizer (agent codec Decode: "In the case of an agent restart, the
// manifestwork finalizer is cleared. Explicitly re-add the finalizer"), but
// AgentInformerWatcherStore.HandleReceivedResource keeps it only for a work
// it does not hold yet: onto a stored work it copies the deletionTimestamp
// and the generation, nothing else. A stored work without the finalizer
// stays without it however often the delete comes again; ocm's finalize
// controller reports a deletion only by removing that finalizer, so nothing
// on the agent reports it. An empty store (a restarted agent, whose resync
// delivers every deleting bundle) takes the event whole, finalizer included.
func TestAgentStoreRedeleteKeepsAMissingFinalizer(t *testing.T) {
	tests := []struct {
		name      string
		stored    bool     // the work is in the store when the delete comes
		finalizer bool     // the stored work has the agent's finalizer
		deletes   int      // delete events delivered
		want      []string // finalizers of the stored work afterwards
	}{
		{"not stored (restarted agent): added with the finalizer", false, false, 1,
			[]string{workv1.ManifestWorkFinalizer}},
		{"stored with the finalizer: deleting, finalizer kept", true, true, 1,
			[]string{workv1.ManifestWorkFinalizer}},
		{"stored without the finalizer: deleting, still none after 3 deletes", true, false, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s := store.NewAgentInformerWatcherStore()
			lastEvent := drain(t, s)
			work := sourceWork()
			if tt.stored {
				applied := decode(t, cetypes.CreateRequestAction, work)
				if err := s.HandleReceivedResource(ctx, applied); err != nil {
					t.Fatalf("create event: %v", err)
				}
				if tt.finalizer { // as ocm's AddFinalizerController patches it on
					cur := get(t, s, applied.Name)
					cur.Finalizers = []string{workv1.ManifestWorkFinalizer}
					if err := s.Update(cur); err != nil {
						t.Fatalf("add finalizer: %v", err)
					}
				}
			}
			deletedAt := metav1.NewTime(time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC))
			work.DeletionTimestamp = &deletedAt
			for i := range tt.deletes {
				deleting := decode(t, cetypes.DeleteRequestAction, work)
				if !slices.Equal(deleting.Finalizers, []string{workv1.ManifestWorkFinalizer}) {
					t.Fatalf("decoded delete event %d: finalizers %v, want the codec's %q",
						i+1, deleting.Finalizers, workv1.ManifestWorkFinalizer)
				}
				if err := s.HandleReceivedResource(ctx, deleting); err != nil {
					t.Fatalf("delete event %d: %v", i+1, err)
				}
			}
			got := get(t, s, work.Name)
			if !got.DeletionTimestamp.Equal(&deletedAt) {
				t.Errorf("deletionTimestamp = %v, want %v", got.DeletionTimestamp, deletedAt)
			}
			if !slices.Equal(got.Finalizers, tt.want) {
				t.Errorf("finalizers = %v, want %v", got.Finalizers, tt.want)
			}
			// The informer, and so every controller, sees what the store holds.
			last := lastEvent().Object.(*workv1.ManifestWork)
			if !slices.Equal(last.Finalizers, got.Finalizers) || !last.DeletionTimestamp.Equal(got.DeletionTimestamp) {
				t.Errorf("last watch event: finalizers %v, deletionTimestamp %v; store: %v, %v",
					last.Finalizers, last.DeletionTimestamp, got.Finalizers, got.DeletionTimestamp)
			}
		})
	}
}

// TestAgentStoreMissingFinalizerConfirmedBySweep: the sdk-go this module
// builds with (v1.3.1-0.20260630085947) heals the state above by itself:
// NewManifestWorkAgentClient starts a sweep (deleteWork, every 2 s) that
// publishes Deleted for every stored work deleting without finalizers and
// drops it from the store. The sdk-go Maestro and its real agent are built
// with (v1.1.1-0.20260128013609) has no such sweep: there a Deleted status
// goes out only from ManifestWorkAgentClient.Patch, when a patch leaves the
// work deleting without finalizers, which no controller sends once the
// finalizer is gone. agentsim's NoDeletionSweep models that agent.
func TestAgentStoreMissingFinalizerConfirmedBySweep(t *testing.T) {
	ctx := t.Context()
	s := store.NewAgentInformerWatcherStore()
	stop := drain(t, s)
	t.Cleanup(func() { stop() })
	work := sourceWork()
	if err := s.HandleReceivedResource(ctx, decode(t, cetypes.CreateRequestAction, work)); err != nil {
		t.Fatalf("create event: %v", err)
	}
	deletedAt := metav1.Now()
	work.DeletionTimestamp = &deletedAt
	if err := s.HandleReceivedResource(ctx, decode(t, cetypes.DeleteRequestAction, work)); err != nil {
		t.Fatalf("delete event: %v", err)
	}
	if w := get(t, s, work.Name); len(w.Finalizers) != 0 || w.DeletionTimestamp == nil {
		t.Fatalf("stored work: finalizers %v, deletionTimestamp %v; want none, set", w.Finalizers, w.DeletionTimestamp)
	}
	pub := publisher{published: make(chan *workv1.ManifestWork, 10)}
	agentclient.NewManifestWorkAgentClient(ctx, "c1", s, pub)
	select {
	case w := <-pub.published:
		if w.Name != work.Name || !meta.IsStatusConditionTrue(w.Status.Conditions, common.ResourceDeleted) {
			t.Errorf("published %s with conditions %+v, want %s Deleted", w.Name, w.Status.Conditions, work.Name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no status published within 10s")
	}
	eventually(t, 5*time.Second, "swept work dropped from the store", func() error {
		if _, ok, err := s.Get(ctx, "c1", work.Name); ok || err != nil {
			return fmt.Errorf("still stored (%v)", err)
		}
		return nil
	})
}

// publisher records what the agent client publishes.
type publisher struct {
	// Only Publish is called.
	generic.CloudEventsClient[*workv1.ManifestWork]
	published chan *workv1.ManifestWork
}

func (p publisher) Publish(_ context.Context, _ cetypes.CloudEventsType, w *workv1.ManifestWork) error {
	select {
	case p.published <- w.DeepCopy():
	default:
	}
	return nil
}

// sourceWork is a one-ConfigMap bundle as Maestro sends it to consumer c1:
// named by its uid.
func sourceWork() *workv1.ManifestWork {
	w := bundle("b", "v1")
	w.UID = types.UID("0b1c2d3e-0000-4000-8000-000000000001")
	w.Name = string(w.UID)
	w.Namespace = "c1"
	w.Generation = 1
	return w
}

// decode passes work through sdk-go's source codec and the agent's codec,
// as a spec event from Maestro reaches the agent's store.
func decode(t *testing.T, action cetypes.EventAction, work *workv1.ManifestWork) *workv1.ManifestWork {
	t.Helper()
	evtType := cetypes.CloudEventsType{
		CloudEventsDataType: payload.ManifestBundleEventDataType,
		SubResource:         cetypes.SubResourceSpec,
		Action:              action,
	}
	evt, err := sourcecodec.NewManifestBundleCodec().Encode("maestro", evtType, work)
	if err != nil {
		t.Fatalf("encode %s: %v", action, err)
	}
	decoded, err := codec.NewManifestBundleCodec().Decode(evt)
	if err != nil {
		t.Fatalf("decode %s: %v", action, err)
	}
	return decoded
}

func get(t *testing.T, s *store.AgentInformerWatcherStore, name string) *workv1.ManifestWork {
	t.Helper()
	w, ok, err := s.Get(t.Context(), "c1", name)
	if err != nil || !ok {
		t.Fatalf("store Get %s: found %v, %v", name, ok, err)
	}
	return w.DeepCopy()
}

// drain reads the store's watch events (its Receive blocks without a
// reader); the function it returns stops the watch once the test's writes
// are done and returns the last event read.
func drain(t *testing.T, s *store.AgentInformerWatcherStore) func() watch.Event {
	t.Helper()
	w, err := s.GetWatcher(t.Context(), "c1", metav1.ListOptions{})
	if err != nil {
		t.Fatalf("GetWatcher: %v", err)
	}
	last := make(chan watch.Event, 1)
	go func() {
		var evt watch.Event
		for e := range w.ResultChan() {
			evt = e
		}
		last <- evt
	}()
	return func() watch.Event { w.Stop(); return <-last }
}
