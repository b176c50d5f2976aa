package maestroclient_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	workv1 "open-cluster-management.io/api/work/v1"
	agentclient "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/agent/client"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/store"
	cetypes "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/types"
	"open-cluster-management.io/sdk-go/pkg/patcher"
)

// TestAgentStoreRedeleteOfALostDeletion is the evidence, on sdk-go's own
// agent store, agent client and patcher (no servers), for what a delete
// re-sent to an agent that lost the first one (work stored with ocm's
// finalizer and without deletionTimestamp; its AppliedManifestWork, and so
// the Job, already removed by the first delete) does, and how the agent
// can apply the bundle again 24 ms later (soak).
//
// The re-sent delete changes the stored work's deletionTimestamp and
// resourceVersion only (generation: the event's, unchanged): spec, labels,
// finalizers and status stay, so ocm's ManifestWorkController's update
// handler does not enqueue it. But the store sends the watch event before
// it writes its cache (sdk-go clients/store/informer.go Update), and ocm's
// ManifestWorkFinalizeController, woken by that event, finds no
// AppliedManifestWork and removes the finalizer at once, by a Patch that
// reads the work from that cache. If the Patch reads it before the delete's
// write lands, it stores the work without deletionTimestamp and without the
// finalizer: the informer sees a live work without finalizer, ocm's
// AddFinalizerController adds it back, and that finalizer-added update is
// what ManifestWorkController enqueues, syncs (no deletionTimestamp, has
// the finalizer) and applies. Where the delete's own cache write lands
// last, the next Patch carries the deletionTimestamp again and the work is
// deleted without an apply.
//
// Controllers are reduced to the calls ocm v1.1.1-0.20260127130621 makes
// (pkg/work/spoke/controllers), on the informer's copy (the last watch
// event): finalizecontroller sync with no AppliedManifestWork ->
// patcher.RemoveFinalizer; AddFinalizerController -> patcher.AddFinalizer;
// ManifestWorkController's onUpdateFunc and sync guards.
func TestAgentStoreRedeleteOfALostDeletion(t *testing.T) {
	tests := []struct {
		name string
		race bool // the finalize controller's Patch reads the cache before the delete's write lands
		// order of the held cache writes: true = the delete's lands last
		deleteLast bool
		wantApply  bool
	}{
		{"no race: deleted, no apply", false, false, false},
		{"race, the finalizer removal's write lands last: applied again", true, false, true},
		{"race, the delete's write lands last: deleted, no apply", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s := store.NewAgentInformerWatcherStore()
			gate := &heldStore{Store: s.Store, held: map[string]chan struct{}{}}
			s.Store = gate
			w, err := s.GetWatcher(ctx, "c1", metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(w.Stop)
			inf := &informer{events: w.ResultChan()}

			sweepless, stop := context.WithCancel(ctx)
			stop() // v1.1.1 has no deletion sweep; the test looks at the Patch and the events
			pub := publisher{published: make(chan *workv1.ManifestWork, 10)}
			works := agentclient.NewManifestWorkAgentClient(sweepless, "c1", s, pub)
			works.SetNamespace("c1")
			p := patcher.NewPatcher[*workv1.ManifestWork, workv1.ManifestWorkSpec, workv1.ManifestWorkStatus](works)

			// The lost deletion: stored, finalizer (AddFinalizerController),
			// applied status, no deletionTimestamp.
			work := sourceWork()
			write(t, inf, func() error { return s.HandleReceivedResource(ctx, decode(t, cetypes.CreateRequestAction, work)) })
			created := inf.copy()
			write(t, inf, func() error { _, err := p.AddFinalizer(ctx, created, workv1.ManifestWorkFinalizer); return err })
			cur := inf.copy()
			lost := write(t, inf, func() error {
				st := cur.Status.DeepCopy()
				meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: workv1.WorkApplied,
					Status: metav1.ConditionTrue, Reason: "AppliedManifestWorkComplete", ObservedGeneration: 1})
				_, err := p.PatchStatus(ctx, cur, *st, cur.Status)
				return err
			})
			if lost.DeletionTimestamp != nil || !slices.Contains(lost.Finalizers, workv1.ManifestWorkFinalizer) {
				t.Fatalf("setup: %v %v", lost.DeletionTimestamp, lost.Finalizers)
			}
			t.Logf("lost deletion: rv %s gen %d finalizers %v", lost.ResourceVersion, lost.Generation, lost.Finalizers)

			// The re-sent delete (same uid, generation, deletionTimestamp).
			deletedAt := metav1.NewTime(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
			work.DeletionTimestamp = &deletedAt
			delRV, patchRV := next(lost.ResourceVersion, 1), next(lost.ResourceVersion, 2)
			if tt.race {
				gate.hold(delRV)
				gate.hold(patchRV)
			}
			deleted := make(chan error, 1)
			go func() { deleted <- s.HandleReceivedResource(ctx, decode(t, cetypes.DeleteRequestAction, work)) }()
			deleting := inf.next(t)
			if !tt.race { // the delete's cache write lands before the finalize controller reads
				if err := <-deleted; err != nil {
					t.Fatalf("delete: %v", err)
				}
				deleted <- nil
			}
			t.Logf("re-sent delete -> %s", describe(deleting))
			if deleting.DeletionTimestamp == nil || deleting.ResourceVersion != delRV ||
				deleting.Generation != lost.Generation ||
				!equality.Semantic.DeepEqual(deleting.Spec, lost.Spec) ||
				!equality.Semantic.DeepEqual(deleting.Labels, lost.Labels) ||
				!slices.Equal(deleting.Finalizers, lost.Finalizers) ||
				!equality.Semantic.DeepEqual(deleting.Status, lost.Status) {
				t.Errorf("the re-sent delete changed more than deletionTimestamp and resourceVersion:\n%+v\n%+v", lost, deleting)
			}
			if mwcEnqueues(lost, deleting) {
				t.Errorf("ManifestWorkController enqueued the re-sent delete's update")
			}

			// ManifestWorkFinalizeController: deleting, no AppliedManifestWork
			// -> RemoveFinalizer on the informer's copy.
			removed := make(chan error, 1)
			go func() { removed <- p.RemoveFinalizer(ctx, deleting.DeepCopy(), workv1.ManifestWorkFinalizer) }()
			afterRemove := inf.next(t)
			t.Logf("finalizer removal -> %s", describe(afterRemove))
			if tt.race { // both writes have sent their watch events; land them in order
				first, second := patchRV, delRV
				if !tt.deleteLast {
					first, second = delRV, patchRV
				}
				gate.release(first)
				time.Sleep(50 * time.Millisecond)
				gate.release(second)
			}
			if err := <-deleted; err != nil {
				t.Fatalf("delete: %v", err)
			}
			if err := <-removed; err != nil {
				t.Fatalf("remove finalizer: %v", err)
			}
			cached := get(t, s, work.Name)
			t.Logf("cache: %s", describe(cached))

			// What the controllers do next, from the informer's copy.
			applied := false
			cur = afterRemove
			for range 3 {
				var n *workv1.ManifestWork
				switch {
				case cur.DeletionTimestamp == nil && !slices.Contains(cur.Finalizers, workv1.ManifestWorkFinalizer):
					// AddFinalizerController
					n = write(t, inf, func() error { _, err := p.AddFinalizer(ctx, cur.DeepCopy(), workv1.ManifestWorkFinalizer); return err })
				case cur.DeletionTimestamp != nil && slices.Contains(cur.Finalizers, workv1.ManifestWorkFinalizer):
					// ManifestWorkFinalizeController, no AppliedManifestWork
					n = write(t, inf, func() error { return p.RemoveFinalizer(ctx, cur.DeepCopy(), workv1.ManifestWorkFinalizer) })
				default:
					cur = nil
				}
				if cur == nil {
					break
				}
				t.Logf("next -> %s (ManifestWorkController enqueues: %v, would apply: %v)",
					describe(n), mwcEnqueues(cur, n), mwcSyncApplies(n))
				if mwcEnqueues(cur, n) && mwcSyncApplies(n) {
					applied = true
				}
				cur = n
			}
			if applied != tt.wantApply {
				t.Errorf("ManifestWorkController applies: %v, want %v", applied, tt.wantApply)
			}
			final := inf.last
			if !tt.wantApply && (final.DeletionTimestamp == nil || len(final.Finalizers) != 0) {
				t.Errorf("want the work deleting without finalizers (sweep/Patch then confirms): %s", describe(final))
			}
			// The status the agent would publish next carries the cache's
			// metadata: no deletionTimestamp once applied again.
			if tt.wantApply && get(t, s, work.Name).DeletionTimestamp != nil {
				t.Errorf("cache kept the deletionTimestamp")
			}
		})
	}
}

// heldStore holds the cache write of chosen resource versions until released,
// so a test can interleave a write after its watch event was sent.
type heldStore struct {
	cache.Store
	mu   sync.Mutex
	held map[string]chan struct{}
}

func (h *heldStore) hold(rv string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held[rv] = make(chan struct{})
}

func (h *heldStore) release(rv string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.held[rv])
}

func (h *heldStore) Update(obj any) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	h.mu.Lock()
	ch := h.held[m.GetResourceVersion()]
	h.mu.Unlock()
	if ch != nil {
		<-ch
	}
	return h.Store.Update(obj)
}

// informer stands for the agent's ManifestWork informer: its copy of a work
// is the last watch event.
type informer struct {
	events <-chan watch.Event
	last   *workv1.ManifestWork
}

func (i *informer) next(t *testing.T) *workv1.ManifestWork {
	t.Helper()
	select {
	case e := <-i.events:
		i.last = e.Object.(*workv1.ManifestWork).DeepCopy()
		return i.last.DeepCopy()
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event within 5s")
		return nil
	}
}

func (i *informer) copy() *workv1.ManifestWork { return i.last.DeepCopy() }

// mwcEnqueues is ocm's ManifestWorkController onUpdateFunc
// (manifestwork_controller.go:246-276).
func mwcEnqueues(old, cur *workv1.ManifestWork) bool {
	if !slices.Contains(cur.Finalizers, workv1.ManifestWorkFinalizer) {
		return false
	}
	if !slices.Contains(old.Finalizers, workv1.ManifestWorkFinalizer) {
		return true
	}
	return !equality.Semantic.DeepEqual(cur.Spec, old.Spec) || !equality.Semantic.DeepEqual(cur.Labels, old.Labels)
}

// mwcSyncApplies is ManifestWorkController.sync's guards before it applies
// (manifestwork_controller.go:143-157).
func mwcSyncApplies(w *workv1.ManifestWork) bool {
	return w.DeletionTimestamp.IsZero() && slices.Contains(w.Finalizers, workv1.ManifestWorkFinalizer) &&
		!meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkComplete)
}

// write runs a store write, reads its watch event (the store blocks on it)
// and waits for the write to land in the cache. Without that wait the next
// write here read the pre-write cache in two of three subtests of one plain
// `go test -race` run (a status lost, a Patch NotFound): the store's window
// between watch event and cache write is hit without any gate.
func write(t *testing.T, inf *informer, f func() error) *workv1.ManifestWork {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	evt := inf.next(t)
	if err := <-done; err != nil {
		t.Fatalf("write: %v", err)
	}
	return evt
}

func next(rv string, by int) string {
	n, _ := strconv.Atoi(rv)
	return strconv.Itoa(n + by)
}

func describe(w *workv1.ManifestWork) string {
	dt := "no deletionTimestamp"
	if w.DeletionTimestamp != nil {
		dt = "deleting"
	}
	return "rv " + w.ResourceVersion + ", " + dt + ", finalizers " + func() string {
		if len(w.Finalizers) == 0 {
			return "none"
		}
		return w.Finalizers[0]
	}()
}
