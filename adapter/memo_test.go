package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// memoWorld is one Maestro with two long-lived replicas on it: A, under
// test (the fingerprint memo on or off), and B, always without the memo,
// writing behind A's back.
type memoWorld struct {
	t     *testing.T
	store *memmaestro.Store
	api   *apistub.Stub
	a, b  *adapter.Pipeline
}

func newMemoWorld(t *testing.T, now *time.Time, memo int) *memoWorld {
	t.Helper()
	clock := func() time.Time { return *now }
	task, err := config.LoadTaskConfig("testdata/task-memo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := &memoWorld{t: t, api: apistub.New("v1", nil),
		store: memmaestro.New(memmaestro.Options{Clock: clock, AutoStatus: true, Consumers: []string{"c1"}})}
	pipeline := func(memo int) *adapter.Pipeline {
		p, err := adapter.New(adapter.Options{Task: task, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
			Maestro: w.store, API: w.api, Clock: clock, FingerprintMemo: memo,
			LookupEnv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	w.a, w.b = pipeline(memo), pipeline(-1)
	return w
}

// run sets the cluster the API returns and runs one event on replica A (or
// B), returning its result and the Maestro calls it made.
func (w *memoWorld) run(onB bool, cluster map[string]any, fields map[string]any) (*adapter.Result, []memmaestro.Call) {
	w.t.Helper()
	body, err := json.Marshal(cluster)
	if err != nil {
		w.t.Fatal(err)
	}
	w.api.Set("GET /api/hyperfleet/v1/clusters/x", apistub.Response{Status: 200, Body: body})
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	p := w.a
	if onB {
		p = w.b
	}
	w.store.ResetCalls()
	res := p.Run(context.Background(), adapter.Event{ID: "ev", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
	return res, w.store.Calls()
}

// memoCluster is the API's cluster x with spec fields set from kv (key,
// value, ...).
func memoCluster(kv ...any) map[string]any {
	spec := map[string]any{"region": "r1", "zones": []any{"a", "b"}, "owner": map[string]any{"team": "t1"}, "size": 3}
	for i := 0; i+1 < len(kv); i += 2 {
		spec[kv[i].(string)] = kv[i+1]
	}
	return map[string]any{"id": "x", "spec": spec, "labels": map[string]any{}, "status": map[string]any{"phase": "Ready"}}
}

// The memo changes no decision, write, fingerprint or status report over a
// story through every decision: unchanged events, API values the templates
// read and values they do not, a second replica writing behind A's back
// (A's remembered fingerprint then differs from what Maestro holds, and the
// update must render), a recreation, a deletion and the cluster back.
func TestMemoDecidesAsRenders(t *testing.T) {
	base := memoCluster()
	statusMoved := memoCluster()
	statusMoved["status"] = map[string]any{"phase": "Degraded", "lastUpdate": "2026-11-30T10:05:00Z"}
	region2 := memoCluster("region", "r2")
	zones := memoCluster("region", "r2", "zones", []any{"b", "a"})
	noOwner := memoCluster("region", "r2", "zones", []any{"b", "a"}, "owner", nil)
	tier := memoCluster("region", "r2", "zones", []any{"b", "a"}, "owner", nil)
	tier["labels"] = map[string]any{"tier": "gold"}
	sizeFloat := memoCluster("region", "r2", "zones", []any{"b", "a"}, "owner", nil, "size", 3.5)
	noSpec := map[string]any{"id": "x", "labels": map[string]any{}}
	gen2 := map[string]any{"generation": int64(2)}
	rec3 := map[string]any{"generation": int64(3), "recreate": true}
	gen3 := map[string]any{"generation": int64(3)}
	del := map[string]any{"generation": int64(3), "deleting": true}
	story := []struct {
		name    string
		onB     bool
		cluster map[string]any
		fields  map[string]any
		confirm bool // the agent confirms every deletion after the step
	}{
		{name: "new cluster: all created", cluster: base},
		{name: "unchanged", cluster: base},
		{name: "unchanged again", cluster: base},
		{name: "a value no template reads moved: unchanged", cluster: statusMoved},
		{name: "region moved: config updated", cluster: region2},
		{name: "unchanged at the new region", cluster: region2},
		{name: "zones reordered: config updated", cluster: zones},
		{name: "owner null (with's else): config updated", cluster: noOwner},
		{name: "label read through index: config updated", cluster: tier},
		{name: "size 3 to 3.5: config updated", cluster: sizeFloat},
		{name: "back to the earlier inputs: config updated from a remembered fingerprint", cluster: tier},
		{name: "B updates to generation 2", onB: true, cluster: tier, fields: gen2},
		{name: "A's generation-1 event: remembered, differs from Maestro's: update back", cluster: tier},
		{name: "generation 2 on A", cluster: tier, fields: gen2},
		{name: "generation 2 on A: unchanged", cluster: tier, fields: gen2},
		{name: "recreation to generation 3: pending", cluster: tier, fields: rec3, confirm: true},
		{name: "recreated", cluster: tier, fields: rec3},
		{name: "generation 3: unchanged", cluster: tier, fields: gen3},
		{name: "spec missing: config fails to render", cluster: noSpec, fields: gen3},
		{name: "spec missing again: fails again", cluster: noSpec, fields: gen3},
		{name: "spec back: unchanged", cluster: tier, fields: gen3},
		{name: "deleting: delete pending", cluster: tier, fields: del, confirm: true},
		{name: "gone", cluster: tier, fields: del},
		{name: "cluster back: created", cluster: tier, fields: gen3},
		{name: "cluster back: unchanged", cluster: tier, fields: gen3},
	}
	now := t0
	off, on := newMemoWorld(t, &now, -1), newMemoWorld(t, &now, 0)
	for _, s := range story {
		now = now.Add(10 * time.Second)
		wantRes, wantCalls := off.run(s.onB, s.cluster, s.fields)
		gotRes, gotCalls := on.run(s.onB, s.cluster, s.fields)
		if g, w := fmt.Sprint(outcomes(gotRes)), fmt.Sprint(outcomes(wantRes)); g != w {
			t.Errorf("%s: outcomes with the memo %s, without %s", s.name, g, w)
		}
		if g, w := fmt.Sprint(fingerprints(gotRes)), fmt.Sprint(fingerprints(wantRes)); g != w {
			t.Errorf("%s: fingerprints with the memo %s, without %s", s.name, g, w)
		}
		if g, w := fmt.Sprint(writesOf(gotCalls)), fmt.Sprint(writesOf(wantCalls)); g != w {
			t.Errorf("%s: writes with the memo %v, without %v", s.name, g, w)
		}
		if g, w := lastPut(on.api), lastPut(off.api); !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			t.Errorf("%s: status report with the memo\n %s\nwithout\n %s", s.name, gj, wj)
		}
		if g, w := worksOf(t, on.store), worksOf(t, off.store); g != w {
			t.Errorf("%s: Maestro holds with the memo\n %s\nwithout\n %s", s.name, g, w)
		}
		t.Logf("%s: %v", s.name, outcomes(gotRes))
		if s.confirm {
			on.store.ConfirmAll()
			off.store.ConfirmAll()
		}
	}
}

// worksOf is what the store holds, as the agent would apply it: each
// work's name, annotations, labels and manifests.
func worksOf(t *testing.T, s *memmaestro.Store) string {
	t.Helper()
	type held struct {
		Name        string
		Labels      map[string]string
		Annotations map[string]string
		Manifests   []string
	}
	var out []held
	for _, w := range s.Works() {
		h := held{Name: w.Namespace + "/" + w.Name, Labels: w.Labels, Annotations: w.Annotations}
		for _, m := range w.Spec.Workload.Manifests {
			h.Manifests = append(h.Manifests, string(m.Raw))
		}
		out = append(out, h)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
