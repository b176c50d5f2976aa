package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// Tracing end to end: the adapter, with HyperFleet's tracing variables
// pointing at an in-process OTLP/gRPC receiver, gets one event carrying a
// traceparent (as Sentinel sends it). Its spans arrive over a real
// connection in the event's trace: Execute under the event's span, the
// phases under it, each bundle's decision with its Maestro calls, and the
// HyperFleet API calls, whose requests carried their span's traceparent.
func TestTracing(t *testing.T) {
	st := requireStack(t)
	otlp := startOTLPReceiver(t)
	api := newAPI(t)
	topic := unique("e2e-trace-")
	dir := newAdapterDir(t, st, api, topic, rabbitBroker(st, topic))
	startTracedAdapter(t, st, dir, otlp.addr)
	c := newCluster(t, st, api, topic)

	traceID, parentID := randomHex(16), randomHex(8)
	evID := unique("ev-")
	publishRaw(t, st, topic, stacktest.Event{ID: evID, ClusterID: c.id, Generation: 1,
		TraceParent: "00-" + traceID + "-" + parentID + "-01"}.JSON())
	var spans []otlpSpan
	eventually(t, 60*time.Second, "the event's spans at the receiver", func() error {
		spans = otlp.trace(traceID)
		if root := find(spans, "Execute", nil); root == nil {
			return fmt.Errorf("%d spans of trace %s, no Execute yet", len(spans), traceID)
		}
		if find(spans, "HTTP PUT", nil) == nil {
			return fmt.Errorf("no HTTP PUT span yet")
		}
		return nil
	})
	tr := spanIndex{t: t, spans: spans}
	root := tr.one("Execute", nil)
	if root.parentID != parentID {
		t.Errorf("Execute's parent %s, want the event's span %s", root.parentID, parentID)
	}
	tr.attrs(root, map[string]string{"cloudevents.event_id": evID, "cloudevents.event_type": stacktest.ReconcileType,
		"bundle_adapter.resource.id": c.id, "bundle_adapter.resource.kind": "Cluster",
		"bundle_adapter.delivery_attempt": "1", "bundle_adapter.execution_status": "success", "bundle_adapter.settled": "acked"})
	if root.errorStatus {
		t.Errorf("Execute has an error status: %v", root.attrs)
	}
	if r := root.resource; r["service.name"] != "bundle-adapter-e2e" || r["k8s.namespace.name"] != "e2e" {
		t.Errorf("resource %v, want service.name and OTEL_RESOURCE_ATTRIBUTES", r)
	}
	for _, phase := range []string{"params", "preconditions", "bundles", "post"} {
		tr.childOf(tr.one(phase, nil), root)
	}
	param := tr.one("param", map[string]string{"bundle_adapter.param": "cluster"})
	tr.childOf(param, tr.one("params", nil))
	get := tr.one("HTTP GET", nil)
	tr.childOf(get, param)
	tr.attrs(get, map[string]string{"http.request.method": "GET", "url.full": api.URL + stacktest.ClustersPath + c.id, "http.response.status_code": "200"})
	put := tr.one("HTTP PUT", nil)
	tr.childOf(put, tr.one("post", nil))
	tr.childOf(tr.one("maestro.GetBundles", nil), tr.one("bundles", nil))
	for _, name := range []string{"clusterSetup", "validationJob"} {
		b := tr.one("bundle", map[string]string{"bundle_adapter.bundle": name})
		tr.childOf(b, tr.one("bundles", nil))
		tr.attrs(b, map[string]string{"bundle_adapter.consumer": st.consumer, "bundle_adapter.operation": "create",
			"bundle_adapter.state": "done", "bundle_adapter.reason": "Created"})
		tr.childOf(tr.one("maestro.Create", map[string]string{"bundle_adapter.work": b.attrs["bundle_adapter.work"]}), b)
	}
	checkAPITraceparents(t, api, c.id, traceID, get, put)
}

// checkAPITraceparents: the cluster GET and the status PUT carried the
// traceparent of their own HTTP span.
func checkAPITraceparents(t *testing.T, api *hyperfleetAPI, id, traceID string, get, put *otlpSpan) {
	t.Helper()
	want := map[string]string{
		"GET " + stacktest.ClustersPath + id:               "00-" + traceID + "-" + get.spanID + "-01",
		"PUT " + stacktest.ClustersPath + id + "/statuses": "00-" + traceID + "-" + put.spanID + "-01",
	}
	got := map[string]string{}
	for _, r := range api.Requests() {
		if strings.Contains(r.Path, id) {
			got[r.Method+" "+r.Path] = r.Traceparent
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s carried traceparent %q, want %q", k, got[k], v)
		}
	}
}

// startTracedAdapter starts serve as startAdapter does, with tracing on and
// exported to the receiver at addr over OTLP/gRPC (plaintext: http://).
func startTracedAdapter(t *testing.T, st *stack, dir, addr string) {
	t.Helper()
	a, err := stacktest.StartAdapter(stacktest.AdapterOptions{
		Bin: adapterBin, Files: stacktest.FilesIn(dir),
		Env: []string{"MAESTRO_CONSUMER=" + st.consumer, "VALIDATOR_IMAGE=busybox:1.36",
			"HYPERFLEET_TRACING_ENABLED=true", "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + addr,
			"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_SERVICE_NAME=bundle-adapter-e2e",
			"OTEL_RESOURCE_ATTRIBUTES=k8s.namespace.name=e2e", "OTEL_BSP_SCHEDULE_DELAY=200"},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &adapterProc{Adapter: a, t: t}
	t.Cleanup(func() { p.stop(); p.dumpLogOnFailure() })
	eventually(t, 90*time.Second, "adapter /readyz", p.Ready)
}

// spanIndex finds spans of one trace and checks their relations.
type spanIndex struct {
	t     *testing.T
	spans []otlpSpan
}

// one is the only span named name whose attributes include attrs.
func (x spanIndex) one(name string, attrs map[string]string) *otlpSpan {
	x.t.Helper()
	var found []*otlpSpan
	for i := range x.spans {
		if s := &x.spans[i]; s.name == name && hasAttrs(s, attrs) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		x.t.Fatalf("%d spans %s %v, want one; spans: %s", len(found), name, attrs, x.names())
	}
	return found[0]
}

func (x spanIndex) childOf(child, parent *otlpSpan) {
	x.t.Helper()
	if child.parentID != parent.spanID {
		x.t.Errorf("span %s %s has parent %s, want %s %s", child.name, child.spanID, child.parentID, parent.name, parent.spanID)
	}
	if child.errorStatus {
		x.t.Errorf("span %s has an error status: %v", child.name, child.attrs)
	}
}

func (x spanIndex) attrs(s *otlpSpan, want map[string]string) {
	x.t.Helper()
	if !hasAttrs(s, want) {
		x.t.Errorf("span %s attributes %v, want %v", s.name, s.attrs, want)
	}
}

func (x spanIndex) names() string {
	var names []string
	for _, s := range x.spans {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

func find(spans []otlpSpan, name string, attrs map[string]string) *otlpSpan {
	for i := range spans {
		if spans[i].name == name && hasAttrs(&spans[i], attrs) {
			return &spans[i]
		}
	}
	return nil
}

func hasAttrs(s *otlpSpan, attrs map[string]string) bool {
	for k, v := range attrs {
		if s.attrs[k] != v {
			return false
		}
	}
	return true
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }
