// Package contract holds the behavioural scenarios every adapter.Maestro must
// pass: the in-memory fake (memmaestro) and the client of a real Maestro
// server alike. Run them from a test with a Harness for the implementation.
//
// The scenarios poll where a real server is asynchronous (a create or delete
// becoming visible, a confirmed deletion turning into 404), so they hold for
// both. Each scenario uses fresh work names from Harness.Unique and deletes
// what it created when it ends.
package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Harness gives the scenarios an implementation under test and control of
// the agent behind it.
type Harness interface {
	// Maestro is the implementation under test.
	Maestro() adapter.Maestro
	// Confirm makes the agent confirm the pending deletion of a work, so that
	// Get eventually answers adapter.ErrNotFound. Until Confirm is called for
	// a work, the agent must hold its deletion. It fails t when it cannot.
	Confirm(t *testing.T, consumer, name string)
	// Registered is the name of a consumer registered in Maestro.
	Registered() string
	// Unregistered is the name of a consumer Maestro does not know.
	Unregistered() string
	// Unique returns a work name, starting with prefix, not used before; it
	// must be a DNS-1123 label.
	Unique(prefix string) string
}

// Holder may be implemented by a Harness whose agent takes a work some time
// after Maestro stores it. A real agent holds a deletion only once it has
// put its finalizer on the work, when it applies it; a deletion reaching it
// before that is confirmed by its store's sweep without waiting for
// Confirm. Held reports whether the agent has taken w; every scenario waits
// for it after a create. Default: a work is taken once Get returns it.
type Holder interface {
	Held(w *workv1.ManifestWork) bool
}

// Timeouter may be implemented by a Harness to bound how long a scenario
// waits for an asynchronous effect. Default: DefaultTimeout.
type Timeouter interface {
	Timeout() time.Duration
}

// DefaultTimeout bounds each wait of a scenario when the Harness does not
// implement Timeouter. A real agent confirms a deletion within its retry
// backoff, which starts at 50 ms.
const DefaultTimeout = 30 * time.Second

// Scenario is one behavioural check.
type Scenario struct {
	Name string
	Run  func(t *testing.T, h Harness)
}

// Scenarios lists every scenario Run runs, in order.
var Scenarios = []Scenario{
	{"GetMissing", getMissing},
	{"CreateThenGet", createThenGet},
	{"Update", update},
	{"UpdateMissing", updateMissing},
	{"DeleteIsSoftUntilConfirmed", deleteIsSoft},
	{"DeleteMissing", deleteMissing},
	{"DeleteWhileDeletingIsAccepted", deleteWhileDeleting},
	{"RedeleteMissing", redeleteMissing},
	{"UpdateWhileDeleting", updateWhileDeleting},
	{"CreateWhileDeleting", createWhileDeleting},
	{"UnregisteredConsumer", unregisteredConsumer},
	{"GetBundlesMatchesGet", getBundlesMatchesGet},
	{"CreateAfterAStaleReadAbsent", createAfterStaleReadAbsent},
}

// Run runs every scenario as a subtest of t.
func Run(t *testing.T, h Harness) {
	t.Helper()
	for _, sc := range Scenarios {
		t.Run(sc.Name, func(t *testing.T) { sc.Run(t, h) })
	}
}

func getMissing(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	name := h.Unique("missing")
	_, err := h.Maestro().Get(ctx, h.Registered(), name)
	wantErr(t, "Get of a work never created", err, adapter.ErrNotFound)
}

func createThenGet(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("create")
	desired := Work(name, "one")
	created := mustCreate(t, ctx, h, c, desired)
	if created.Name != name {
		t.Errorf("Create returned name %q, want %q", created.Name, name)
	}
	got := eventuallyCreated(t, ctx, h, c, name)
	checkFresh(t, got, c, name)
	if got.UID != created.UID {
		t.Errorf("Get uid %q differs from the uid %q Create returned", got.UID, created.UID)
	}
	if v := got.Labels[LabelKey]; v != "one" {
		t.Errorf("Get label %s = %q, want %q", LabelKey, v, "one")
	}
	if gotData, wantData := ConfigMapData(t, got), "one"; gotData != wantData {
		t.Errorf("Get manifest data = %q, want %q", gotData, wantData)
	}
}

func update(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("update")
	mustCreate(t, ctx, h, c, Work(name, "one"))
	before := eventuallyCreated(t, ctx, h, c, name)

	desired := Work(name, "two")
	if _, err := h.Maestro().Update(ctx, c, before, desired); err != nil {
		t.Fatalf("Update: %v", err)
	}
	after := eventuallyGet(t, ctx, h, c, name, "the updated work", func(w *workv1.ManifestWork) bool {
		return w.Labels[LabelKey] == "two"
	})
	if got := ConfigMapData(t, after); got != "two" {
		t.Errorf("manifest data after Update = %q, want %q", got, "two")
	}
	if after.Generation <= before.Generation {
		t.Errorf("generation after Update = %d, want > %d", after.Generation, before.Generation)
	}
	if after.UID != before.UID {
		t.Errorf("uid changed by Update: %q -> %q", before.UID, after.UID)
	}
	if !after.CreationTimestamp.Equal(&before.CreationTimestamp) {
		t.Errorf("creationTimestamp changed by Update: %v -> %v", before.CreationTimestamp, after.CreationTimestamp)
	}
	if after.DeletionTimestamp != nil {
		t.Errorf("Update set deletionTimestamp %v", after.DeletionTimestamp)
	}
}

func updateMissing(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("update-missing")
	w := Work(name, "one")
	_, err := h.Maestro().Update(ctx, c, w, w)
	wantErr(t, "Update of a work never created", err, adapter.ErrNotFound)
}

func deleteIsSoft(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("delete")
	mustCreate(t, ctx, h, c, Work(name, "one"))
	eventuallyCreated(t, ctx, h, c, name)

	if err := h.Maestro().Delete(ctx, c, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	eventuallyDeleting(t, ctx, h, c, name)
	h.Confirm(t, c, name)
	eventuallyNotFound(t, ctx, h, c, name)
}

func deleteMissing(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	err := h.Maestro().Delete(ctx, h.Registered(), h.Unique("delete-missing"))
	wantErr(t, "Delete of a work never created", err, adapter.ErrNotFound)
}

func deleteWhileDeleting(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("redelete")
	mustCreate(t, ctx, h, c, Work(name, "one"))
	eventuallyCreated(t, ctx, h, c, name)
	if err := h.Maestro().Delete(ctx, c, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	first := eventuallyDeleting(t, ctx, h, c, name)

	if err := h.Maestro().Delete(ctx, c, name); err != nil {
		t.Fatalf("second Delete while deleting: %v, want it accepted", err)
	}
	again := mustGet(t, ctx, h, c, name)
	if again.DeletionTimestamp == nil || !again.DeletionTimestamp.Equal(first.DeletionTimestamp) {
		t.Errorf("deletionTimestamp after a second Delete = %v, want it kept at %v", again.DeletionTimestamp, first.DeletionTimestamp)
	}
	h.Confirm(t, c, name)
	eventuallyNotFound(t, ctx, h, c, name)
}

func redeleteMissing(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	err := h.Maestro().Redelete(ctx, h.Registered(), h.Unique("resend-missing"))
	wantErr(t, "Redelete of a work never created", err, adapter.ErrNotFound)
}

func updateWhileDeleting(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("update-deleting")
	mustCreate(t, ctx, h, c, Work(name, "one"))
	eventuallyCreated(t, ctx, h, c, name)
	if err := h.Maestro().Delete(ctx, c, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	observed := eventuallyDeleting(t, ctx, h, c, name)

	_, err := h.Maestro().Update(ctx, c, observed, Work(name, "two"))
	wantErr(t, "Update while deleting", err, adapter.ErrUnderDeletion)
	after := mustGet(t, ctx, h, c, name)
	if got := after.Labels[LabelKey]; got != "one" {
		t.Errorf("label after a refused Update = %q, want %q", got, "one")
	}
	h.Confirm(t, c, name)
	eventuallyNotFound(t, ctx, h, c, name)
}

func createWhileDeleting(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("recreate")
	mustCreate(t, ctx, h, c, Work(name, "one"))
	eventuallyCreated(t, ctx, h, c, name)
	if err := h.Maestro().Delete(ctx, c, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	old := eventuallyDeleting(t, ctx, h, c, name)

	_, err := h.Maestro().Create(ctx, c, Work(name, "two"), adapter.Unread)
	wantErr(t, "Create while the old work is being deleted", err, adapter.ErrAlreadyExists)
	still := mustGet(t, ctx, h, c, name)
	if still.DeletionTimestamp == nil {
		t.Errorf("the deleting work lost its deletionTimestamp after a refused Create")
	}
	if got := still.Labels[LabelKey]; got != "one" {
		t.Errorf("label after a refused Create = %q, want %q (the old work)", got, "one")
	}
	if got := ConfigMapData(t, still); got != "one" {
		t.Errorf("manifest data after a refused Create = %q, want %q (the old work)", got, "one")
	}
	if still.Generation != old.Generation {
		t.Errorf("generation after a refused Create = %d, want %d", still.Generation, old.Generation)
	}

	h.Confirm(t, c, name)
	eventuallyNotFound(t, ctx, h, c, name)
	// Not mustCreate: the cleanup it registered for the old work covers the
	// new one, and a second cleanup of the name would race with the first.
	if _, err := h.Maestro().Create(ctx, c, Work(name, "two"), adapter.Unread); err != nil {
		t.Fatalf("Create after the confirmed deletion: %v", err)
	}
	fresh := eventuallyGet(t, ctx, h, c, name, "the re-created work", func(w *workv1.ManifestWork) bool {
		return w.Labels[LabelKey] == "two"
	})
	checkFresh(t, fresh, c, name)
}

// getBundlesMatchesGet: one GetBundles of a live work, a work being
// deleted, a work never created and a work on an unregistered consumer
// answers what Get answers for each: the live and the deleting work (with
// its deletionTimestamp), nil for the other two.
func getBundlesMatchesGet(t *testing.T, h Harness) {
	br := h.Maestro()
	ctx := testContext(t, h)
	c := h.Registered()
	live, deleting, never := h.Unique("batch-live"), h.Unique("batch-deleting"), h.Unique("batch-never")
	mustCreate(t, ctx, h, c, Work(live, "one"))
	mustCreate(t, ctx, h, c, Work(deleting, "one"))
	eventuallyCreated(t, ctx, h, c, live)
	eventuallyCreated(t, ctx, h, c, deleting)
	if err := h.Maestro().Delete(ctx, c, deleting); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	eventuallyDeleting(t, ctx, h, c, deleting)

	keys := []adapter.BundleKey{{Consumer: c, Name: live}, {Consumer: c, Name: deleting}, {Consumer: c, Name: never}, {Consumer: h.Unregistered(), Name: live}}
	works, err := br.GetBundles(ctx, keys)
	if err != nil {
		t.Fatalf("GetBundles: %v", err)
	}
	if len(works) != len(keys) {
		t.Fatalf("GetBundles returned %d entries for %d keys", len(works), len(keys))
	}
	for i, k := range keys {
		one, err := h.Maestro().Get(ctx, k.Consumer, k.Name)
		if errors.Is(err, adapter.ErrNotFound) {
			if works[i] != nil {
				t.Errorf("%s/%s: GetBundles gave %s, Get answered not found", k.Consumer, k.Name, summary(works[i]))
			}
			continue
		}
		if err != nil {
			t.Fatalf("Get %s/%s: %v", k.Consumer, k.Name, err)
		}
		if works[i] == nil || summary(works[i]) != summary(one) || works[i].ResourceVersion != one.ResourceVersion {
			t.Errorf("%s/%s: GetBundles gave %s, Get %s", k.Consumer, k.Name, summary(works[i]), summary(one))
		}
	}
	if works[1] == nil || works[1].DeletionTimestamp == nil {
		t.Errorf("the work being deleted must come with its deletionTimestamp, got %s", summary(works[1]))
	}
	h.Confirm(t, c, deleting)
	eventuallyNotFound(t, ctx, h, c, deleting)
}

func unregisteredConsumer(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Unregistered(), h.Unique("unregistered")
	_, err := h.Maestro().Create(ctx, c, Work(name, "one"), adapter.Unread)
	wantErr(t, "Create for an unregistered consumer", err, adapter.ErrConsumerNotRegistered)
	if err != nil && !strings.Contains(err.Error(), c) {
		t.Errorf("Create error %q does not name the consumer %q", err, c)
	}
	_, err = h.Maestro().Get(ctx, c, name)
	wantErr(t, "Get for an unregistered consumer", err, adapter.ErrNotFound)
}

// createAfterStaleReadAbsent: a Create told adapter.ReadAbsent (the
// caller read 404, which may be stale: another replica created the work
// since, or is deleting it) keeps the contract of an unmarked one: it
// fails with ErrAlreadyExists and changes nothing while a work of that name
// exists, deleting or not; an unregistered consumer is still named; once
// the deletion is confirmed it creates.
func createAfterStaleReadAbsent(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	c, name := h.Registered(), h.Unique("absent")
	mustCreate(t, ctx, h, c, Work(name, "one"))
	eventuallyCreated(t, ctx, h, c, name)
	_, err := h.Maestro().Create(ctx, c, Work(name, "two"), adapter.ReadAbsent)
	wantErr(t, "Create marked read-absent of an existing work", err, adapter.ErrAlreadyExists)
	if got := mustGet(t, ctx, h, c, name); got.Labels[LabelKey] != "one" || got.DeletionTimestamp != nil {
		t.Errorf("after a refused Create: %s, want the live work revision one", summary(got))
	}
	if err := h.Maestro().Delete(ctx, c, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	eventuallyDeleting(t, ctx, h, c, name)
	_, err = h.Maestro().Create(ctx, c, Work(name, "two"), adapter.ReadAbsent)
	wantErr(t, "Create marked read-absent while the work is being deleted", err, adapter.ErrAlreadyExists)
	if got := mustGet(t, ctx, h, c, name); got.Labels[LabelKey] != "one" || got.DeletionTimestamp == nil {
		t.Errorf("after a refused Create: %s, want the deleting work revision one", summary(got))
	}
	other := h.Unregistered()
	_, err = h.Maestro().Create(ctx, other, Work(h.Unique("absent"), "one"), adapter.ReadAbsent)
	wantErr(t, "Create marked read-absent for an unregistered consumer", err, adapter.ErrConsumerNotRegistered)
	h.Confirm(t, c, name)
	eventuallyNotFound(t, ctx, h, c, name)
	if _, err := h.Maestro().Create(ctx, c, Work(name, "two"), adapter.ReadAbsent); err != nil {
		t.Fatalf("Create marked read-absent after the confirmed deletion: %v", err)
	}
	eventuallyGet(t, ctx, h, c, name, "the re-created work", func(w *workv1.ManifestWork) bool {
		return w.Labels[LabelKey] == "two"
	})
}

// LabelKey is the label every scenario work carries, with the revision as
// its value.
const LabelKey = "contract.bundle-adapter.io/revision"

// Work returns a valid work named name holding one ConfigMap whose data
// "revision" and the work's LabelKey label are revision.
func Work(name, revision string) *workv1.ManifestWork {
	cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap",`+
		`"metadata":{"name":%q,"namespace":"default"},"data":{"revision":%q}}`, name, revision)
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{LabelKey: revision},
		},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{
			Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: []byte(cm)}}},
		}},
	}
}

// ConfigMapData returns data.revision of the first manifest of w, as Work
// builds it; it fails t when w does not hold one.
func ConfigMapData(t *testing.T, w *workv1.ManifestWork) string {
	t.Helper()
	if len(w.Spec.Workload.Manifests) == 0 {
		t.Fatalf("work %s/%s has no manifests", w.Namespace, w.Name)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	u := w.Spec.Workload.Manifests[0].Raw
	if err := json.Unmarshal(u, &cm); err != nil {
		t.Fatalf("work %s/%s manifest[0]: %v", w.Namespace, w.Name, err)
	}
	return cm.Data["revision"]
}

func testContext(t *testing.T, h Harness) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 4*timeout(h))
	t.Cleanup(cancel)
	return ctx
}

func timeout(h Harness) time.Duration {
	if to, ok := h.(Timeouter); ok && to.Timeout() > 0 {
		return to.Timeout()
	}
	return DefaultTimeout
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want one wrapping %q", what, err, want)
	}
}

// mustCreate creates w and registers a cleanup that deletes it and confirms
// the deletion, whatever the scenario left. Call it once per work name: two
// cleanups of one name race, the second confirming what the first removed.
func mustCreate(t *testing.T, ctx context.Context, h Harness, consumer string, w *workv1.ManifestWork) *workv1.ManifestWork {
	t.Helper()
	created, err := h.Maestro().Create(ctx, consumer, w, adapter.Unread)
	if err != nil {
		t.Fatalf("Create %s/%s: %v", consumer, w.Name, err)
	}
	t.Cleanup(func() { cleanup(t, h, consumer, w.Name) })
	return created
}

func cleanup(t *testing.T, h Harness, consumer, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout(h))
	defer cancel()
	err := h.Maestro().Delete(ctx, consumer, name)
	if errors.Is(err, adapter.ErrNotFound) {
		return
	}
	if err != nil {
		t.Logf("cleanup: Delete %s/%s: %v", consumer, name, err)
		return
	}
	if _, err := h.Maestro().Get(ctx, consumer, name); errors.Is(err, adapter.ErrNotFound) {
		return
	}
	h.Confirm(t, consumer, name)
}

func mustGet(t *testing.T, ctx context.Context, h Harness, consumer, name string) *workv1.ManifestWork {
	t.Helper()
	w, err := h.Maestro().Get(ctx, consumer, name)
	if err != nil {
		t.Fatalf("Get %s/%s: %v", consumer, name, err)
	}
	return w
}

// eventuallyGet polls Get until it returns a work for which ok holds.
func eventuallyGet(t *testing.T, ctx context.Context, h Harness, consumer, name, what string,
	ok func(*workv1.ManifestWork) bool) *workv1.ManifestWork {
	t.Helper()
	var last *workv1.ManifestWork
	var lastErr error
	poll(t, h, what, func() bool {
		last, lastErr = h.Maestro().Get(ctx, consumer, name)
		return lastErr == nil && ok(last)
	}, func() string { return fmt.Sprintf("last Get: %v, err %v", summary(last), lastErr) })
	return last
}

// eventuallyCreated waits until Get returns the created work and, where the
// harness is a Holder, its agent has taken it (see Holder).
func eventuallyCreated(t *testing.T, ctx context.Context, h Harness, consumer, name string) *workv1.ManifestWork {
	t.Helper()
	held := func(*workv1.ManifestWork) bool { return true }
	if hh, ok := h.(Holder); ok {
		held = hh.Held
	}
	return eventuallyGet(t, ctx, h, consumer, name, "the created work, taken by the agent", held)
}

func eventuallyDeleting(t *testing.T, ctx context.Context, h Harness, consumer, name string) *workv1.ManifestWork {
	t.Helper()
	return eventuallyGet(t, ctx, h, consumer, name, "the work with a deletionTimestamp",
		func(w *workv1.ManifestWork) bool { return w.DeletionTimestamp != nil })
}

func eventuallyNotFound(t *testing.T, ctx context.Context, h Harness, consumer, name string) {
	t.Helper()
	var lastErr error
	poll(t, h, "Get to answer not found after the confirmed deletion", func() bool {
		_, lastErr = h.Maestro().Get(ctx, consumer, name)
		return errors.Is(lastErr, adapter.ErrNotFound)
	}, func() string { return fmt.Sprintf("last Get error: %v", lastErr) })
}

// poll calls done until it reports true, backing off from 10 ms to 1 s, and
// fails t with state() after the harness timeout.
func poll(t *testing.T, h Harness, what string, done func() bool, state func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout(h))
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		if done() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s; %s", timeout(h), what, state())
		}
		time.Sleep(wait)
	}
}

// checkFresh checks the metadata Maestro sets on a work it created.
func checkFresh(t *testing.T, w *workv1.ManifestWork, consumer, name string) {
	t.Helper()
	if w.Namespace != consumer {
		t.Errorf("namespace = %q, want the consumer %q", w.Namespace, consumer)
	}
	if w.Name != name {
		t.Errorf("name = %q, want %q", w.Name, name)
	}
	if w.UID == "" {
		t.Errorf("uid is empty")
	}
	if w.CreationTimestamp.IsZero() {
		t.Errorf("creationTimestamp is not set")
	}
	if w.Generation < 1 {
		t.Errorf("generation = %d, want >= 1", w.Generation)
	}
	if w.DeletionTimestamp != nil {
		t.Errorf("a fresh work carries deletionTimestamp %v", w.DeletionTimestamp)
	}
}

func summary(w *workv1.ManifestWork) string {
	if w == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s/%s generation=%d labels=%v deletionTimestamp=%v",
		w.Namespace, w.Name, w.Generation, w.Labels, w.DeletionTimestamp)
}
