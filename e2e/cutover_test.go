package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// Cutting over from hyperfleet-adapter (docs/migration.md, "Cutting
// over") on the real stack. The objects exist as hyperfleet-adapter created
// them: testdata/cutover/<transport>/situations/<cluster>/anchor.json is
// what its own dry-run (hack/anchor/record.sh, the anchor's binary) applied
// for the task config beside it, one cluster each, with its
// hyperfleet.io/generation annotation and without our fingerprint; the
// status it reported is there too. The test creates those objects as it
// does (a ManifestWork through the source client, a kubernetes object with
// a create), then
//
//   - shadow: `serve --shadow` over every cluster agrees on every decision,
//     and nothing reaches Maestro, the API server or the HyperFleet API;
//   - switch: the first `serve`, with one resource's template changed
//     beforehand (a label), writes each changed object once and the others
//     never; a second round of events writes nothing.
//
// Writes are counted on the servers' side: a bundle's Maestro version
// (generation and resourceVersion: every write bumps it) and a watch of the
// API server from before the events (every write is an event: a new
// resourceVersion), synced by a marker write after them. Without adoption
// both tests fail: the shadow reports the 10 objects as updates and the
// switch writes all of them.

// cutoverTierLabel is what the switch changes in the task config before
// serve (changedTier): the "tier" label of the second resource, in both
// task configs.
const cutoverTierLabel = "cutover.example/tier: standard"

func changedTier(task string) string {
	return strings.Replace(task, cutoverTierLabel, "cutover.example/tier: premium", 1)
}

// anchorRun is one recorded anchor dry-run: the objects it created, by
// resource name, and the status it reported.
type anchorRun struct {
	objects map[string]map[string]any
	status  map[string]any
}

// loadAnchorRuns reads every situation of a cutover fixture, by cluster id
// (the situation's name).
func loadAnchorRuns(t *testing.T, fixture string) (ids []string, runs map[string]anchorRun) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata/cutover", fixture, "situations", "*", "anchor.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no anchor recordings under testdata/cutover/%s: %v", fixture, err)
	}
	runs = map[string]anchorRun{}
	for _, path := range dirs {
		var rec struct {
			Status    string
			Resources []struct {
				Name, Operation string
				Object          map[string]any
			}
			Requests []struct {
				Method, URL string
				Body        map[string]any
			}
		}
		if err := json.Unmarshal([]byte(readFile(t, path)), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		id := filepath.Base(filepath.Dir(path))
		run := anchorRun{objects: map[string]map[string]any{}}
		for _, r := range rec.Resources {
			if r.Operation != "create" || r.Object == nil {
				t.Fatalf("%s: resource %s: operation %q, want a create with its object", path, r.Name, r.Operation)
			}
			run.objects[r.Name] = r.Object
		}
		for _, r := range rec.Requests {
			if r.Method == "PUT" && strings.HasSuffix(r.URL, "/statuses") {
				run.status = r.Body
			}
		}
		if rec.Status != "success" || len(run.objects) == 0 || run.status == nil {
			t.Fatalf("%s: status %q, %d objects, status PUT %v", path, rec.Status, len(run.objects), run.status != nil)
		}
		ids = append(ids, id)
		runs[id] = run
	}
	sort.Strings(ids)
	return ids, runs
}

// cutoverAdapter starts serve (args: more flags) on files; stopped when the
// test ends.
func cutoverAdapter(t *testing.T, files stacktest.Files, env []string, args ...string) *stacktest.Adapter {
	t.Helper()
	a, err := stacktest.StartAdapter(stacktest.AdapterOptions{Bin: adapterBin, Files: files, Env: env, Args: args,
		LogPath: filepath.Join(files.Dir, fmt.Sprintf("adapter-%d.log", time.Now().UnixNano()))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = a.Stop(40 * time.Second)
		if t.Failed() {
			t.Logf("adapter %v log (last lines of %s):\n%s", args, a.LogPath(), a.Tail(60))
		}
	})
	eventually(t, 90*time.Second, "adapter /readyz", a.Ready)
	return a
}

// cutoverFiles writes an adapter's config files into a new folder: the
// task config, adapterCfg and a broker config for topic.
func cutoverFiles(t *testing.T, st *stack, task, adapterCfg, topic string) stacktest.Files {
	t.Helper()
	files := stacktest.FilesIn(t.TempDir())
	writeFile(t, files.Task, task)
	if err := stacktest.WriteFiles(files, adapterCfg, rabbitBroker(st, topic)); err != nil {
		t.Fatal(err)
	}
	return files
}

// shadowAgrees publishes one event per cluster to a shadow replica and
// waits until it decided every one (resources per cluster + the status);
// every decision must agree.
func shadowAgrees(t *testing.T, st *stack, shadow *stacktest.Adapter, topic string, ids []string, resources int) {
	t.Helper()
	for _, id := range ids {
		publish(t, st, topic, id, 1)
	}
	want := float64(len(ids) * (resources + 1))
	var m stacktest.Metrics
	eventually(t, 90*time.Second, "the shadow's decisions", func() error {
		var err error
		if m, err = shadow.Metrics(); err != nil {
			return err
		}
		if got := m.Sum("bundle_adapter_shadow_decisions_total"); got < want {
			return fmt.Errorf("%v decisions, want %v", got, want)
		}
		return nil
	})
	agree, disagree := m.Sum("bundle_adapter_shadow_decisions_total", `agrees="true"`), m.Sum("bundle_adapter_shadow_decisions_total", `agrees="false"`)
	t.Logf("shadow over %d clusters: %v decisions agree, %v disagree (%v)", len(ids), agree, disagree, m.By("bundle_adapter_shadow_decisions_total", "operation"))
	if agree != want || disagree != 0 {
		t.Errorf("shadow decisions: %v agree, %v disagree; want %v and 0", agree, disagree, want)
	}
}

// switchRound publishes one event per cluster to serve and waits for each
// cluster's next status PUT, which must report Health True.
func switchRound(t *testing.T, st *stack, api *hyperfleetAPI, topic string, ids []string) {
	t.Helper()
	before := map[string]int{}
	for _, id := range ids {
		before[id] = api.StatusCount(id)
		publish(t, st, topic, id, 1)
	}
	for _, id := range ids {
		eventually(t, 60*time.Second, "a status PUT for "+id, func() error {
			if n := api.StatusCount(id); n <= before[id] {
				return fmt.Errorf("%d status PUTs", n)
			}
			return nil
		})
		if h := condition(api.LastStatus(id), "Health"); h != "True/Healthy" {
			t.Errorf("%s: Health %s: %v", id, h, api.LastStatus(id)["conditions"])
		}
	}
}

// TestCutoverMaestro: (a) shadow, then (b) the switch, on Maestro with a
// real agent.
func TestCutoverMaestro(t *testing.T) {
	st := requireStack(t)
	ids, runs := loadAnchorRuns(t, "maestro")
	api := newAPI(t)
	topic := unique("e2e-cutover-")
	source := "e2e-" + topic
	mc, err := maestroclient.New(t.Context(), maestroclient.Options{GRPCAddress: st.grpcAddr, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: st.restURL, HTTP: maestroclient.TLSOptions{Insecure: true}, SourceID: source})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mc.Close() })

	// What hyperfleet-adapter created and reported.
	var names []string
	for _, id := range ids {
		api.setCluster(id, 1, nil)
		api.SeedStatus(id, runs[id].status)
		for _, obj := range runs[id].objects {
			work := &workv1.ManifestWork{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, work); err != nil {
				t.Fatalf("%s: recorded ManifestWork: %v", id, err)
			}
			if _, err := mc.Create(t.Context(), st.consumer, work, adapter.Unread); err != nil {
				t.Fatalf("create %s as hyperfleet-adapter does: %v", work.Name, err)
			}
			names = append(names, work.Name)
			t.Cleanup(func() { _ = mc.Delete(context.Background(), st.consumer, work.Name) })
		}
	}
	sort.Strings(names)
	versions := func() map[string]int64 {
		t.Helper()
		v := map[string]int64{}
		for _, n := range names {
			w, err := mc.Get(t.Context(), st.consumer, n)
			if err != nil {
				t.Fatalf("get %s: %v", n, err)
			}
			v[n] = w.Generation
		}
		return v
	}
	for _, n := range names {
		eventually(t, 60*time.Second, n+" applied by the agent", func() error {
			w, err := mc.Get(t.Context(), st.consumer, n)
			if err != nil {
				return err
			}
			for _, c := range w.Status.Conditions {
				if c.Type == workv1.WorkAvailable && c.Status == metav1.ConditionTrue && c.ObservedGeneration == w.Generation {
					return nil
				}
			}
			return fmt.Errorf("not available at generation %d: %v", w.Generation, w.Status.Conditions)
		})
	}
	created := versions()
	task := readFile(t, "testdata/cutover/maestro/task-config.yaml")
	env := []string{"MAESTRO_CONSUMER=" + st.consumer}
	cfg := adapterConfig(api, topic, st.grpcAddr, st.restURL, source, "")

	t.Run("shadow agrees and writes nothing", func(t *testing.T) {
		shadow := cutoverAdapter(t, cutoverFiles(t, st, task, cfg, topic), env, "--shadow")
		shadowAgrees(t, st, shadow, topic, ids, 2)
		_, _ = shadow.Stop(40 * time.Second)
		if got := versions(); !equalMaps(got, created) {
			t.Errorf("Maestro versions after the shadow: %v, want %v", got, created)
		}
		if _, puts := api.Counts(); puts != 0 {
			t.Errorf("%d status PUTs reached the API from the shadow", puts)
		}
		t.Logf("Maestro writes during the shadow: 0 of %d bundles (versions %v)", len(names), created)
	})
	t.Run("a data-only difference is a disagreement", func(t *testing.T) {
		// The live status differs from what this adapter would report in
		// one data field only: the shadow compares the whole body
		// (issue 42), so the status decision disagrees, by field class data.
		id := ids[0]
		live := maps.Clone(runs[id].status)
		live["data"] = map[string]any{"consumer": "cluster-e2e-other"}
		api.SeedStatus(id, live)
		defer api.SeedStatus(id, runs[id].status)
		shadow := cutoverAdapter(t, cutoverFiles(t, st, task, cfg, topic), env, "--shadow")
		publish(t, st, topic, id, 1)
		var m stacktest.Metrics
		eventually(t, 90*time.Second, "the shadow's decisions", func() error {
			var err error
			if m, err = shadow.Metrics(); err != nil {
				return err
			}
			if got := m.Sum("bundle_adapter_shadow_decisions_total"); got < 3 {
				return fmt.Errorf("%v decisions, want 3 (two bundles and the status)", got)
			}
			return nil
		})
		disagree := m.Sum("bundle_adapter_shadow_decisions_total", `agrees="false"`)
		data := m.Sum("bundle_adapter_shadow_decisions_total", `agrees="false"`, `field="data"`)
		if disagree != 1 || data != 1 {
			t.Errorf("disagreements %v, of them by data %v; want 1 and 1 (%v)", disagree, data, m.By("bundle_adapter_shadow_decisions_total", "field"))
		}
		_, _ = shadow.Stop(40 * time.Second)
	})
	t.Run("the switch writes the changed bundles once", func(t *testing.T) {
		if !strings.Contains(task, cutoverTierLabel) {
			t.Fatalf("the task config has no %q to change", cutoverTierLabel)
		}
		serve := cutoverAdapter(t, cutoverFiles(t, st, changedTier(task), cfg, topic), env)
		switchRound(t, st, api, topic, ids)
		first := versions()
		writes := map[string]int64{}
		for _, n := range names {
			want := created[n]
			if strings.HasSuffix(n, "-tier") {
				want++
			}
			writes[n] = first[n] - created[n]
			if first[n] != want {
				t.Errorf("%s: Maestro version %d -> %d after the first serve, want %d", n, created[n], first[n], want)
			}
		}
		t.Logf("Maestro writes by the first serve, per bundle (version delta): %v", writes)
		switchRound(t, st, api, topic, ids)
		if again := versions(); !equalMaps(again, first) {
			t.Errorf("Maestro versions after a second round: %v, want %v (no write)", again, first)
		}
		m, err := serve.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("serve's own count: %v adopted, Maestro requests %v", m.Sum("bundle_adapter_bundles_adopted_total"), m.By(stacktest.MaestroRequests, "verb"))
	})
}

// TestCutoverKubernetes: (c) shadow, then the switch, on the kubernetes
// transport against the real kube-apiserver.
func TestCutoverKubernetes(t *testing.T) {
	st := requireKubeStack(t)
	ids, runs := loadAnchorRuns(t, "kube")
	api := newAPI(t)
	topic := unique("e2e-cutover-kube-")
	dc := dynamicClient(t, st)
	const ns = "cutover-e2e"
	kc := kubeClient(t, st)
	if _, err := kc.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", ns, err)
	}

	// What hyperfleet-adapter created (a plain create of the object it
	// rendered) and reported. A rerun on the same stack finds the objects
	// of the last one: they are removed first.
	var objs []kubeRef
	for _, id := range ids {
		api.setCluster(id, 1, nil)
		api.SeedStatus(id, runs[id].status)
		for _, obj := range runs[id].objects {
			u := &unstructured.Unstructured{Object: obj}
			ref := kubeRef{gvr: kubeGVR(u), ns: u.GetNamespace(), name: u.GetName()}
			ri := dc.Resource(ref.gvr).Namespace(ref.ns)
			if err := ri.Delete(t.Context(), ref.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			eventually(t, 30*time.Second, ref.name+" gone", func() error {
				if _, err := ri.Get(t.Context(), ref.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("get: %v", err)
				}
				return nil
			})
			if _, err := ri.Create(t.Context(), u, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create %s as hyperfleet-adapter does: %v", ref.name, err)
			}
			objs = append(objs, ref)
			t.Cleanup(func() { _ = ri.Delete(context.Background(), ref.name, metav1.DeleteOptions{}) })
		}
	}
	task := readFile(t, "testdata/cutover/kube/task-config.yaml")
	cfg := stacktest.AdapterConfig{Name: adapterName(topic), LogLevel: "debug",
		APIURL: api.URL, APITimeout: 5 * time.Second, APIRetryAttempts: 2,
		SubscriptionID: "e2e", Topic: topic, KubeConfigPath: st.kubeconfig}.YAML()

	t.Run("shadow agrees and writes nothing", func(t *testing.T) {
		w := watchWrites(t, dc, ns, objs)
		shadow := cutoverAdapter(t, cutoverFiles(t, st, task, cfg, topic), nil, "--shadow")
		shadowAgrees(t, st, shadow, topic, ids, 2)
		_, _ = shadow.Stop(40 * time.Second)
		if got := withoutMarker(w.stop()); len(got) != 0 {
			t.Errorf("API server writes during the shadow: %v, want none", got)
		}
		if _, puts := api.Counts(); puts != 0 {
			t.Errorf("%d status PUTs reached the API from the shadow", puts)
		}
		t.Logf("API server writes during the shadow: 0 to %d objects", len(objs))
	})
	t.Run("the switch writes the changed objects once", func(t *testing.T) {
		w := watchWrites(t, dc, ns, objs)
		serve := cutoverAdapter(t, cutoverFiles(t, st, changedTier(task), cfg, topic), nil)
		switchRound(t, st, api, topic, ids)
		want := map[string]int{}
		for _, o := range objs {
			if strings.HasSuffix(o.name, "-endpoint") {
				want[o.name] = 1
			}
		}
		// Every event's writes came before its status PUT; the watch has
		// delivered them once it delivered the marker written after.
		w.sync()
		first := withoutMarker(w.counts())
		t.Logf("API server writes by the first serve, per object: %v", first)
		if !equalMaps(first, want) {
			t.Errorf("API server writes by the first serve: %v, want %v", first, want)
		}
		switchRound(t, st, api, topic, ids)
		if got := withoutMarker(w.stop()); !equalMaps(got, want) {
			t.Errorf("API server writes after a second round: %v, want %v (no more)", got, want)
		}
		m, err := serve.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("serve's own count: %v adopted, kubernetes requests %v", m.Sum("bundle_adapter_bundles_adopted_total"),
			m.By("bundle_adapter_kubernetes_requests_total", "verb"))
	})
}

func withoutMarker(counts map[string]int) map[string]int {
	delete(counts, cutoverMarker)
	return counts
}

func equalMaps[V comparable](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func dynamicClient(t *testing.T, st *stack) *dynamic.DynamicClient {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", st.kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

type kubeRef struct {
	gvr      schema.GroupVersionResource
	ns, name string
}

// kubeGVR is the resource of the core kinds the cutover fixtures hold.
func kubeGVR(u *unstructured.Unstructured) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
	return gv.WithResource(strings.ToLower(u.GetKind()) + "s")
}

// kubeWrites counts, from a watch the API server serves, the writes to the
// watched objects (any event after the watch began: modified, deleted,
// created again) by object name.
type kubeWrites struct {
	t      *testing.T
	dc     *dynamic.DynamicClient
	ns     string
	cancel context.CancelFunc
	done   chan struct{}
	ask    chan chan map[string]int
}

// watchWrites watches every resource of objs in namespace ns from the
// resource version of a list made now.
func watchWrites(t *testing.T, dc *dynamic.DynamicClient, ns string, objs []kubeRef) *kubeWrites {
	t.Helper()
	names := map[string]bool{}
	gvrs := map[schema.GroupVersionResource]bool{}
	for _, o := range objs {
		names[o.name], gvrs[o.gvr] = true, true
	}
	names[cutoverMarker] = true
	gvrs[corev1.SchemeGroupVersion.WithResource("configmaps")] = true
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan watch.Event)
	for gvr := range gvrs {
		ri := dc.Resource(gvr).Namespace(ns)
		list, err := ri.List(t.Context(), metav1.ListOptions{})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		w, err := ri.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		go func() {
			defer w.Stop()
			for {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						return
					}
					select {
					case events <- ev:
					case <-ctx.Done():
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	k := &kubeWrites{t: t, dc: dc, ns: ns, cancel: cancel, done: make(chan struct{}), ask: make(chan chan map[string]int)}
	go func() {
		defer close(k.done)
		counts := map[string]int{}
		for {
			select {
			case ev := <-events:
				if ev.Type == watch.Error {
					counts["watch error: "+fmt.Sprint(apierrors.FromObject(ev.Object))]++
					continue
				}
				if u, ok := ev.Object.(*unstructured.Unstructured); ok && names[u.GetName()] {
					counts[u.GetName()]++
				}
			case reply := <-k.ask:
				out := map[string]int{}
				for n, c := range counts {
					out[n] = c
				}
				reply <- out
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(cancel)
	return k
}

// cutoverMarker is the ConfigMap a watch writes to know it delivered
// every earlier write (a watch delivers events in resourceVersion order).
const cutoverMarker = "cutover-watch-marker"

// sync writes the marker and waits until the watch delivered it.
func (k *kubeWrites) sync() {
	k.t.Helper()
	ri := k.dc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(k.ns)
	marker := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": cutoverMarker, "namespace": k.ns}, "data": map[string]any{"at": time.Now().String()}}}
	seen := k.counts()[cutoverMarker]
	if _, err := ri.Update(context.Background(), marker, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
		_, err = ri.Create(context.Background(), marker, metav1.CreateOptions{})
		if err != nil {
			k.t.Fatalf("marker: %v", err)
		}
	} else if err != nil {
		k.t.Fatalf("marker: %v", err)
	}
	eventually(k.t, 30*time.Second, "the watch at the marker", func() error {
		if c := k.counts(); c[cutoverMarker] <= seen {
			return fmt.Errorf("marker not seen yet (%v)", c)
		}
		return nil
	})
}

// counts is the writes seen so far (the marker's too).
func (k *kubeWrites) counts() map[string]int {
	reply := make(chan map[string]int, 1)
	select {
	case k.ask <- reply:
		return <-reply
	case <-k.done:
		return nil
	}
}

// stop ends the watch once it delivered every write made before (sync)
// and returns the writes seen.
func (k *kubeWrites) stop() map[string]int {
	k.sync()
	out := k.counts()
	k.cancel()
	<-k.done
	return out
}
