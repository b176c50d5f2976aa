package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// With the adapter config as HyperFleet writes it (no clients.maestro.view:
// the view is on by default, issue 47), the adapter binary on the real
// stack serves the events after its creates from its view: once the real
// agent has reported on the two bundles the first event created, 20
// unchanged events make no Maestro request at all, no read and no List
// (the agent's statuses of the adapter's own creates made the entries),
// and the metrics say so (event_maestro_requests{unchanged="true"},
// view_lookups_total).
func TestRepeatedEventsServedByTheView(t *testing.T) {
	st := requireStack(t)
	api := newAPI(t)
	topic := unique("e2e-")
	dir := newAdapterDirWith(t, st, api, topic, "    insecure: true\n")
	proc := startAdapter(t, st, dir, topic)
	c := newCluster(t, st, api, topic)
	c.reconcile() // creates both bundles
	eventually(t, 90*time.Second, "the agent's Applied status of both bundles in Maestro", func() error {
		applied := 0
		_, err := stacktest.ListBundles(t.Context(), st.restURL, "source='e2e-"+topic+"'", 100, func(b stacktest.Bundle) {
			if b.Condition("Applied") == "True" {
				applied++
			}
		})
		if err != nil || applied < 2 {
			return fmt.Errorf("%d of 2 applied (%v)", applied, err)
		}
		return nil
	})
	time.Sleep(2 * time.Second) // Maestro's broadcast of that status to the adapter's stream
	before := proc.scrape()
	for range 20 {
		c.reconcile()
	}
	after := proc.scrape()
	reads := after.MaestroReads() - before.MaestroReads()
	writes := after.MaestroWrites() - before.MaestroWrites()
	lists := after.Sum("bundle_adapter_view_lists_total") - before.Sum("bundle_adapter_view_lists_total")
	hits := after.Sum("bundle_adapter_view_lookups_total", `result="hit"`) - before.Sum("bundle_adapter_view_lookups_total", `result="hit"`)
	reqs := after.Sum("bundle_adapter_event_maestro_requests_sum", `unchanged="true"`) - before.Sum("bundle_adapter_event_maestro_requests_sum", `unchanged="true"`)
	events := after.Sum("bundle_adapter_event_maestro_requests_count", `unchanged="true"`) - before.Sum("bundle_adapter_event_maestro_requests_count", `unchanged="true"`)
	t.Logf("20 unchanged events after the creates: %v reads, %v writes, %v Lists, %v view hits, %v Maestro requests over %v unchanged events",
		reads, writes, lists, hits, reqs, events)
	if reads != 0 || writes != 0 || lists != 0 {
		t.Errorf("20 unchanged events after the creates made %v reads, %v writes and %v Lists, want none", reads, writes, lists)
	}
	if hits != 20 || events != 20 || reqs != 0 {
		t.Errorf("metrics: %v hits, %v requests over %v unchanged events; want 20 hits, 0 over 20", hits, reqs, events)
	}
	c.reconcileUntil(30*time.Second, "Applied True from the view", wantConditions("Applied=True/BundlesApplied"))
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
