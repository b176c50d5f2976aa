package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// cluster drives one sample cluster through the adapter: it keeps the
// recording API's view of the cluster and publishes its events.
type cluster struct {
	t     *testing.T
	st    *stack
	api   *hyperfleetAPI
	topic string
	id    string
	gen   int
}

func newCluster(t *testing.T, st *stack, api *hyperfleetAPI, topic string) *cluster {
	c := &cluster{t: t, st: st, api: api, topic: topic, id: unique("c"), gen: 1}
	api.setCluster(c.id, c.gen, nil)
	return c
}

func (c *cluster) jobName() string   { return "validate-" + c.id }
func (c *cluster) namespace() string { return "cluster-" + c.id }

// reconcile publishes one event and waits for the status PUT it causes.
func (c *cluster) reconcile() map[string]any {
	c.t.Helper()
	before := c.api.StatusCount(c.id)
	publish(c.t, c.st, c.topic, c.id, c.gen)
	eventually(c.t, 60*time.Second, "a status PUT for "+c.id, func() error {
		if c.api.StatusCount(c.id) <= before {
			return fmt.Errorf("%d status PUTs so far", before)
		}
		return nil
	})
	return c.api.LastStatus(c.id)
}

// reconcileUntil resends the event (as Sentinel does) until the status
// satisfies ok.
func (c *cluster) reconcileUntil(timeout time.Duration, what string, ok func(map[string]any) error) map[string]any {
	c.t.Helper()
	var last map[string]any
	eventually(c.t, timeout, what, func() error {
		last = c.reconcile()
		return ok(last)
	})
	return last
}

func wantConditions(want ...string) func(map[string]any) error {
	return func(s map[string]any) error {
		for _, w := range want {
			typ, _, _ := strings.Cut(w, "=")
			if got := typ + "=" + condition(s, typ); got != w {
				return fmt.Errorf("%s, want %s", got, w)
			}
		}
		return nil
	}
}

type env struct {
	st    *stack
	api   *hyperfleetAPI
	topic string
	dir   string
	proc  *adapterProc
}

func startEnv(t *testing.T) *env {
	st := requireStack(t)
	e := &env{st: st, api: newAPI(t), topic: unique("e2e-")}
	e.dir = newAdapterDir(t, st, e.api, e.topic, rabbitBroker(st, e.topic))
	e.proc = startAdapter(t, st, e.dir, e.topic)
	return e
}

// Scenario 1: a new cluster event creates the bundles, the agent applies
// them, and the status reports Applied and Available True.
func TestNewClusterIsAppliedAndReported(t *testing.T) {
	e := startEnv(t)
	kc := kubeClient(t, e.st)
	c := newCluster(t, e.st, e.api, e.topic)
	c.reconcileUntil(90*time.Second, "Applied and Available True", wantConditions(
		"Applied=True/BundlesApplied", "Available=True/BundlesAvailable", "Health=True/Healthy", "Finalized=False/NotDeleting"))
	data, err := configMapData(kc, c.namespace(), "cluster-info")
	if err != nil || data["cluster_id"] != c.id {
		t.Errorf("ConfigMap in the API server: %v %v", data, err)
	}
	if _, gen, _, err := jobState(kc, c.jobName()); err != nil || gen != "1" {
		t.Errorf("Job in the API server: generation %q, %v", gen, err)
	}
	// After real events, both metric sets count them: ours and HyperFleet
	// adapter's names, which its dashboards and alerts read.
	m := e.proc.scrape()
	checks := []struct {
		name   string
		labels []string
	}{
		{"bundle_adapter_events_total", []string{`outcome="acked"`}},
		{"bundle_adapter_bundle_operations_total", []string{`operation="create"`}},
		{"hyperfleet_adapter_events_processed_total", []string{`status="success"`}},
		{"hyperfleet_adapter_event_processing_duration_seconds_count", nil},
		{"hyperfleet_adapter_up", nil},
		{"hyperfleet_adapter_build_info", nil},
	}
	for _, c := range checks {
		if got := m.Sum(c.name, c.labels...); got < 1 {
			t.Errorf("%s%v = %v after a real event, want >= 1", c.name, c.labels, got)
		}
	}
}

// Scenario 2: the same event 20 times makes zero Maestro writes and, with
// the bundle view turned off (clients.maestro.view.enabled: false, the
// default before issue 47), one Maestro read each (one request for both
// bundles). With the view on, the default, TestRepeatedEventsServedByTheView.
func TestRepeatedEventsWriteNothing(t *testing.T) {
	st := requireStack(t)
	e := &env{st: st, api: newAPI(t), topic: unique("e2e-")}
	e.dir = newAdapterDirWith(t, st, e.api, e.topic, "    insecure: true\n    view: {enabled: false}\n")
	e.proc = startAdapter(t, st, e.dir, e.topic)
	c := newCluster(t, e.st, e.api, e.topic)
	c.reconcileUntil(90*time.Second, "Applied True", wantConditions("Applied=True/BundlesApplied"))
	writes, reads := e.proc.maestroWrites(), e.proc.maestroReads()
	for i := 0; i < 20; i++ {
		c.reconcile()
	}
	if got := e.proc.maestroWrites() - writes; got != 0 {
		t.Errorf("20 unchanged events made %v Maestro writes, want 0", got)
	}
	if got := e.proc.maestroReads() - reads; got != 20 {
		t.Errorf("20 unchanged events made %v Maestro reads, want 20 (one request per event)", got)
	}
}

// Scenario 4: an immutable change to the Job bundle is delivered by
// recreation. A finalizer on the applied Job holds the deletion: while held
// the status says RecreationPending, Finalized False, and nothing is
// created; once released Maestro answers 404 and the next event creates the
// new Job (new spec, new UID).
func TestRecreationHeldByFinalizer(t *testing.T) {
	e := startEnv(t)
	kc := kubeClient(t, e.st)
	c := newCluster(t, e.st, e.api, e.topic)
	c.reconcileUntil(90*time.Second, "Available True", wantConditions("Available=True/BundlesAvailable"))
	oldUID, _, _, err := jobState(kc, c.jobName())
	if err != nil {
		t.Fatal(err)
	}
	setJobFinalizers(t, kc, c.jobName(), []string{holdFinalizer})
	t.Cleanup(func() { clearFinalizers(kc, c.jobName()) })

	c.gen = 2
	e.api.setCluster(c.id, c.gen, nil)
	s := c.reconcileUntil(60*time.Second, "RecreationPending", wantConditions("Applied=False/RecreationPending", "Finalized=False/NotDeleting"))
	creates := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="create"`)
	deletes := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="delete"`)
	for i := 0; i < 3; i++ {
		s = c.reconcile()
		if err := wantConditions("Applied=False/RecreationPending")(s); err != nil {
			t.Fatalf("while the finalizer holds: %v", err)
		}
	}
	if d := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="create"`) - creates; d != 0 {
		t.Errorf("%v creates while the old bundle still exists", d)
	}
	if d := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="delete"`) - deletes; d != 0 {
		t.Errorf("%v more deletes while the deletion is pending", d)
	}
	if _, _, deleting, err := jobState(kc, c.jobName()); err != nil || !deleting {
		t.Errorf("the old Job must be held in deletion: deleting=%v err=%v", deleting, err)
	}

	setJobFinalizers(t, kc, c.jobName(), nil)
	c.reconcileUntilOrHeal(kc, 120*time.Second, "the recreated bundle applied", wantConditions("Applied=True/BundlesApplied"))
	eventually(t, 60*time.Second, "the new Job", func() error {
		uid, gen, _, err := jobState(kc, c.jobName())
		switch {
		case err != nil:
			return err
		case uid == oldUID:
			return fmt.Errorf("still the old Job (uid %s)", uid)
		case gen != "2":
			return fmt.Errorf("new Job has generation %q, want 2", gen)
		}
		return nil
	})
}

// Scenario 5: cluster deletion while a recreate is also due: delete wins,
// and Finalized turns True once Maestro answers 404 for every bundle. The
// real agent sometimes loses a deletion (docs/reliability.md: it removed
// the cluster's Namespace and never reported the bundle deleted, in a CI
// rehearsal); only then is the agent restarted, once, as an operator would.
func TestDeletionWinsOverRecreation(t *testing.T) {
	e := startEnv(t)
	kc := kubeClient(t, e.st)
	c := newCluster(t, e.st, e.api, e.topic)
	c.reconcileUntil(90*time.Second, "Applied True", wantConditions("Applied=True/BundlesApplied"))
	creates := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="create"`)
	c.gen = 2
	e.api.setCluster(c.id, c.gen, map[string]any{"deleted_time": time.Now().UTC().Format(time.RFC3339)})
	c.reconcileUntilOrHeal(kc, 120*time.Second, "Finalized True", wantConditions("Finalized=True/CleanupConfirmed"))
	if d := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="create"`) - creates; d != 0 {
		t.Errorf("%v creates during deletion: the recreate rule must not run", d)
	}
	eventually(t, 60*time.Second, "the Job gone from the API server", func() error {
		if n, err := jobCount(kc, c.id); err != nil || n != 0 {
			return fmt.Errorf("%d jobs (%v)", n, err)
		}
		return nil
	})
}

// Scenario 8: a malformed message is dead-lettered and later events are
// still processed.
func TestMalformedMessageIsDeadLettered(t *testing.T) {
	e := startEnv(t)
	publishRaw(t, e.st, e.topic, []byte("this is not a CloudEvent"))
	eventually(t, 30*time.Second, "the dead letter", func() error {
		if n := e.proc.metric("bundle_adapter_broker_dead_letters_total", `kind="malformed"`); n != 1 {
			return fmt.Errorf("%v dead letters", n)
		}
		return nil
	})
	c := newCluster(t, e.st, e.api, e.topic)
	c.reconcileUntil(90*time.Second, "Applied True", wantConditions("Applied=True/BundlesApplied"))
}
