package e2e

import (
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// With the adapter config as HyperFleet writes it (no clients.maestro.view:
// the view is on by default, issue 47), the adapter binary on the real
// stack serves repeated unchanged events from its view: after the one read
// that fills the view (the create forgot it), 20 unchanged events make no
// Maestro request at all, and the metrics say so
// (event_maestro_requests{unchanged="true"}, view_lookups_total).
func TestRepeatedEventsServedByTheView(t *testing.T) {
	st := requireStack(t)
	api := newAPI(t)
	topic := unique("e2e-")
	dir := newAdapterDirWith(t, st, api, topic, "    insecure: true\n")
	proc := startAdapter(t, st, dir, topic)
	c := newCluster(t, st, api, topic)
	c.reconcileUntil(90*time.Second, "Applied True", wantConditions("Applied=True/BundlesApplied"))
	c.reconcile() // the read that fills the view
	before := proc.scrape()
	for range 20 {
		c.reconcile()
	}
	after := proc.scrape()
	reads := after.MaestroReads() - before.MaestroReads()
	writes := after.MaestroWrites() - before.MaestroWrites()
	hits := after.Sum("bundle_adapter_view_lookups_total", `result="hit"`) - before.Sum("bundle_adapter_view_lookups_total", `result="hit"`)
	reqs := after.Sum("bundle_adapter_event_maestro_requests_sum", `unchanged="true"`) - before.Sum("bundle_adapter_event_maestro_requests_sum", `unchanged="true"`)
	events := after.Sum("bundle_adapter_event_maestro_requests_count", `unchanged="true"`) - before.Sum("bundle_adapter_event_maestro_requests_count", `unchanged="true"`)
	t.Logf("20 unchanged events: %v reads, %v writes, %v view hits, %v Maestro requests over %v unchanged events", reads, writes, hits, reqs, events)
	if reads != 0 || writes != 0 {
		t.Errorf("20 unchanged events made %v reads and %v writes, want none", reads, writes)
	}
	if hits != 20 || events != 20 || reqs != 0 {
		t.Errorf("metrics: %v hits, %v requests over %v unchanged events; want 20 hits, 0 over 20", hits, reqs, events)
	}
}

// newAdapterDirWith is newAdapterDir with maestroLines (indented four
// spaces) under clients.maestro.
func newAdapterDirWith(t *testing.T, st *stack, api *hyperfleetAPI, topic, maestroLines string) string {
	t.Helper()
	dir := newAdapterDir(t, st, api, topic, rabbitBroker(st, topic))
	cfg := adapterConfig(api, topic, st.grpcAddr, st.restURL, "e2e-"+topic, maestroLines)
	if err := stacktest.WriteFiles(stacktest.FilesIn(dir), cfg, rabbitBroker(st, topic)); err != nil {
		t.Fatal(err)
	}
	return dir
}
