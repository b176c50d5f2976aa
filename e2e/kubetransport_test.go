package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// The kubernetes transport end to end: the adapter binary, RabbitMQ, a
// recording HyperFleet API and the real kube-apiserver (with its
// controller-manager: garbage collector, job controller), no Maestro. The
// task config (testdata/kube) keeps per cluster a ConfigMap "settings-<id>"
// and a Job "probe-<id>" whose pod template carries the generation.

// requireKubeStack skips a test unless the stack's API server is there
// (E2E_STACK=1 and KUBECONFIG); Maestro is not needed.
func requireKubeStack(t *testing.T) *stack {
	t.Helper()
	kc := os.Getenv("KUBECONFIG")
	if os.Getenv("E2E_STACK") != "1" || kc == "" {
		t.Skip("end-to-end: the real stack is not up; run `make e2e` (or E2E_STACK=1 with eval \"$(hack/stack.sh env)\")")
	}
	buildAdapter(t)
	return &stack{kubeconfig: kc, rabbitURL: envOr("E2E_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/")}
}

// kubeEnv is one test's adapters (sharing one queue), API and namespace.
type kubeEnv struct {
	t     *testing.T
	st    *stack
	api   *hyperfleetAPI
	kc    *kubernetes.Clientset
	topic string
	ns    string
	procs []*stacktest.Adapter
}

func startKubeEnv(t *testing.T, replicas int) *kubeEnv {
	st := requireKubeStack(t)
	e := &kubeEnv{t: t, st: st, api: newAPI(t), kc: kubeClient(t, st), topic: unique("e2e-kube-")}
	e.ns = e.topic
	if _, err := e.kc.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", e.ns, err)
	}
	t.Cleanup(e.cleanup)
	dir := t.TempDir()
	task, err := os.ReadFile("testdata/kube/task-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := stacktest.FilesIn(dir)
	writeFile(t, files.Task, string(task))
	adapterCfg := stacktest.AdapterConfig{Name: adapterName(e.topic), LogLevel: "debug",
		APIURL: e.api.URL, APITimeout: 5 * time.Second, APIRetryAttempts: 2,
		SubscriptionID: "e2e", Topic: e.topic, KubeConfigPath: st.kubeconfig}.YAML()
	if err := stacktest.WriteFiles(files, adapterCfg, rabbitBroker(st, e.topic)); err != nil {
		t.Fatal(err)
	}
	for i := range replicas {
		a, err := stacktest.StartAdapter(stacktest.AdapterOptions{
			Bin: adapterBin, Files: files, Env: []string{"E2E_KUBE_NAMESPACE=" + e.ns},
			LogPath: filepath.Join(dir, fmt.Sprintf("adapter-%d.log", i)),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = a.Stop(40 * time.Second)
			if t.Failed() {
				t.Logf("adapter %d log (last lines of %s):\n%s", i, a.LogPath(), a.Tail(60))
			}
		})
		eventually(t, 90*time.Second, "adapter /readyz", a.Ready)
		e.procs = append(e.procs, a)
	}
	return e
}

// cleanup releases every Job the test held and deletes the namespace.
func (e *kubeEnv) cleanup() {
	ctx := context.Background()
	if jobs, err := e.kc.BatchV1().Jobs(e.ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, j := range jobs.Items {
			e.setFinalizers(j.Name, nil)
		}
	}
	_ = e.kc.CoreV1().Namespaces().Delete(ctx, e.ns, metav1.DeleteOptions{})
}

func (e *kubeEnv) setFinalizers(job string, finalizers []string) {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": finalizers}})
	_, err := e.kc.BatchV1().Jobs(e.ns).Patch(context.Background(), job, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		e.t.Errorf("set finalizers %v on job %s: %v", finalizers, job, err)
	}
}

// reconcile publishes one event for cluster id at generation and returns
// the status PUT it caused.
func (e *kubeEnv) reconcile(id string, generation int) map[string]any {
	e.t.Helper()
	before := e.api.StatusCount(id)
	publish(e.t, e.st, e.topic, id, generation)
	eventually(e.t, 60*time.Second, "a status PUT for "+id, func() error {
		if e.api.StatusCount(id) <= before {
			return fmt.Errorf("%d status PUTs so far", before)
		}
		return nil
	})
	s := e.api.LastStatus(id)
	if h := condition(s, "Health"); h != "True/Healthy" {
		e.t.Fatalf("event for %s failed: Health %s: %v", id, h, s["conditions"])
	}
	return s
}

// outcome is "operation/state" of a resource in a status.
func outcome(status map[string]any, resource string) string {
	data, _ := status["data"].(map[string]any)
	bundles, _ := data["bundles"].(map[string]any)
	b, _ := bundles[resource].(map[string]any)
	return fmt.Sprintf("%v/%v", b["operation"], b["state"])
}

func (e *kubeEnv) wantOutcomes(s map[string]any, want map[string]string) {
	e.t.Helper()
	for res, w := range want {
		if got := outcome(s, res); got != w {
			e.t.Errorf("%s: %s, want %s", res, got, w)
		}
	}
}

func (e *kubeEnv) job(id string) (*batchv1.Job, error) {
	return e.kc.BatchV1().Jobs(e.ns).Get(context.Background(), "probe-"+id, metav1.GetOptions{})
}

func (e *kubeEnv) configMap(id string) (*corev1.ConfigMap, error) {
	return e.kc.CoreV1().ConfigMaps(e.ns).Get(context.Background(), "settings-"+id, metav1.GetOptions{})
}

// writes is the audit of the adapters' kubernetes client: the creates,
// applies and deletes it sent for object name, read from the debug logs of
// every replica.
type writes struct{ creates, applies, deletes int }

func (e *kubeEnv) writes(name string) writes {
	e.t.Helper()
	var w writes
	for _, a := range e.procs {
		f, err := os.Open(a.LogPath())
		if err != nil {
			e.t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var rec struct{ Msg, Name, Component string }
			if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Component != "kubernetes" || rec.Name != name {
				continue
			}
			switch rec.Msg {
			case "kubernetes object created":
				w.creates++
			case "kubernetes object applied":
				w.applies++
			case "kubernetes object deletion requested":
				w.deletes++
			}
		}
		f.Close()
	}
	return w
}

func (e *kubeEnv) wantWrites(name string, want writes) {
	e.t.Helper()
	if got := e.writes(name); got != want {
		e.t.Errorf("writes to %s: %+v, want %+v", name, got, want)
	}
}

// kubeRequests sums bundle_adapter_kubernetes_requests_total of the verbs
// over every replica.
func (e *kubeEnv) kubeRequests(verbs ...string) float64 {
	e.t.Helper()
	var n float64
	for _, a := range e.procs {
		m, err := a.Metrics()
		if err != nil {
			e.t.Fatalf("scrape metrics: %v", err)
		}
		for _, v := range verbs {
			n += m.Sum("bundle_adapter_kubernetes_requests_total", `verb="`+v+`"`)
		}
	}
	return n
}

// A Job whose pod template changes is deleted once and created again only
// after the old Job is gone (held by a finalizer meanwhile); the ConfigMap
// changes in place; unchanged events write nothing.
func TestKubeRecreateUpdateUnchanged(t *testing.T) {
	e := startKubeEnv(t, 1)
	id := unique("k")
	job, cm := "probe-"+id, "settings-"+id
	e.api.setCluster(id, 1, nil)

	s := e.reconcile(id, 1)
	e.wantOutcomes(s, map[string]string{"settings": "create/done", "probe": "create/done"})
	j1, err := e.job(id)
	if err != nil || jobGeneration(j1) != "1" {
		t.Fatalf("job after the first event: %v (generation %q)", err, jobGeneration(j1))
	}
	c1, err := e.configMap(id)
	if err != nil || c1.Data["generation"] != "1" {
		t.Fatalf("configmap after the first event: %v %v", err, c1)
	}

	// Unchanged events: no write at all, not even a no-op apply (the
	// client's audit, its metrics and the objects say so), reads only.
	writesBefore, readsBefore := e.kubeRequests("create", "apply", "delete"), e.kubeRequests("get", "list")
	for range 3 {
		e.wantOutcomes(e.reconcile(id, 1), map[string]string{"settings": "unchanged/done", "probe": "unchanged/done"})
	}
	// The job controller writes the Job's status, so only its generation
	// (spec writes) and the client's own audit tell; nothing else writes
	// the ConfigMap, so its resourceVersion does.
	if j, err := e.job(id); err != nil || j.Generation != j1.Generation {
		t.Errorf("job written by unchanged events: %v, generation %d -> %d", err, j1.Generation, j.Generation)
	}
	if c, _ := e.configMap(id); c.ResourceVersion != c1.ResourceVersion {
		t.Errorf("configmap written by unchanged events: resourceVersion %s -> %s", c1.ResourceVersion, c.ResourceVersion)
	}
	e.wantWrites(job, writes{creates: 1})
	e.wantWrites(cm, writes{creates: 1})
	if w := e.kubeRequests("create", "apply", "delete"); w != writesBefore {
		t.Errorf("kubernetes write requests during unchanged events: %v -> %v", writesBefore, w)
	}
	if r := e.kubeRequests("get", "list"); r < readsBefore+6 {
		t.Errorf("kubernetes read requests during 3 unchanged events of 2 resources: %v -> %v, want 6 more", readsBefore, r)
	}

	// Generation 2 while a controller holds the Job: the ConfigMap is
	// updated in place, the Job is deleted once and stays pending.
	e.setFinalizers(job, []string{holdFinalizer})
	e.api.setCluster(id, 2, nil)
	for range 3 {
		e.wantOutcomes(e.reconcile(id, 2), map[string]string{"probe": "recreate/pending"})
	}
	held, err := e.job(id)
	if err != nil || held.UID != j1.UID || held.DeletionTimestamp == nil {
		t.Fatalf("held job: %v (uid %v, deletionTimestamp %v), want the old one being deleted", err, held.UID, held.DeletionTimestamp)
	}
	c2, err := e.configMap(id)
	if err != nil || c2.UID != c1.UID || c2.Data["generation"] != "2" {
		t.Errorf("configmap after generation 2: %v uid %s (was %s) data %v, want updated in place", err, c2.UID, c1.UID, c2.Data)
	}
	e.wantWrites(job, writes{creates: 1, deletes: 1})
	e.wantWrites(cm, writes{creates: 1, applies: 1})

	// The controller finishes: the old Job goes, the next event creates
	// the new one, and reports the end of the recreation, as on Maestro
	// (issue 40: one flow; it read create/done Created before).
	e.setFinalizers(job, nil)
	eventually(t, 30*time.Second, "the old job gone", func() error {
		if _, err := e.job(id); !apierrors.IsNotFound(err) {
			return fmt.Errorf("get: %v", err)
		}
		return nil
	})
	e.wantOutcomes(e.reconcile(id, 2), map[string]string{"probe": "recreate/done", "settings": "unchanged/done"})
	j2, err := e.job(id)
	if err != nil || j2.UID == j1.UID || jobGeneration(j2) != "2" {
		t.Fatalf("new job: %v uid %s (old %s) generation %q", err, j2.UID, j1.UID, jobGeneration(j2))
	}
	e.wantOutcomes(e.reconcile(id, 2), map[string]string{"probe": "unchanged/done", "settings": "unchanged/done"})
	e.wantWrites(job, writes{creates: 2, deletes: 1})
}

// A cluster deleted while its Job's recreation is due: deletion wins, the
// Job is deleted once, never created again.
func TestKubeDeletionWinsOverRecreation(t *testing.T) {
	e := startKubeEnv(t, 1)
	id := unique("k")
	job := "probe-" + id
	e.api.setCluster(id, 1, nil)
	e.wantOutcomes(e.reconcile(id, 1), map[string]string{"settings": "create/done", "probe": "create/done"})

	e.setFinalizers(job, []string{holdFinalizer})
	e.api.setCluster(id, 2, map[string]any{"deleted_time": time.Now().UTC().Format(time.RFC3339)})
	for range 2 {
		e.wantOutcomes(e.reconcile(id, 2), map[string]string{"probe": "delete/pending", "settings": "delete/done"})
	}
	e.setFinalizers(job, nil)
	eventually(t, 30*time.Second, "the job gone", func() error {
		if _, err := e.job(id); !apierrors.IsNotFound(err) {
			return fmt.Errorf("get: %v", err)
		}
		return nil
	})
	for range 2 {
		e.wantOutcomes(e.reconcile(id, 2), map[string]string{"probe": "delete/done", "settings": "delete/done"})
	}
	if _, err := e.job(id); !apierrors.IsNotFound(err) {
		t.Errorf("job after the deletion: %v, want 404", err)
	}
	e.wantWrites(job, writes{creates: 1, deletes: 1})
}

// Two replicas on one queue, every cluster's events sent in bursts so both
// replicas handle the same cluster at once: each Job is recreated with
// exactly one delete, and the fresh Job is never deleted.
func TestKubeTwoReplicasNeverDeleteAFreshJob(t *testing.T) {
	e := startKubeEnv(t, 2)
	const clusters, burst = 6, 4
	ids := make([]string, clusters)
	for i := range ids {
		ids[i] = unique("k")
		e.api.setCluster(ids[i], 1, nil)
	}
	for _, id := range ids {
		e.reconcile(id, 1)
	}
	for _, id := range ids {
		e.api.setCluster(id, 2, nil)
	}
	for round := 0; round < 3; round++ {
		for _, id := range ids {
			for range burst {
				publish(t, e.st, e.topic, id, 2)
			}
		}
		time.Sleep(time.Second)
	}
	eventually(t, 90*time.Second, "every job at generation 2", func() error {
		for _, id := range ids {
			j, err := e.job(id)
			if err != nil || jobGeneration(j) != "2" || j.DeletionTimestamp != nil {
				return fmt.Errorf("%s: %v", id, err)
			}
		}
		return nil
	})
	uids := map[string]types.UID{}
	for _, id := range ids {
		j, _ := e.job(id)
		uids[id] = j.UID
	}
	for _, id := range ids {
		e.wantOutcomes(e.reconcile(id, 2), map[string]string{"probe": "unchanged/done"})
		if j, err := e.job(id); err != nil || j.UID != uids[id] {
			t.Errorf("%s: the fresh job was replaced: %v", id, err)
		}
		if w := e.writes("probe-" + id); w.deletes != 1 || w.creates != 2 {
			t.Errorf("writes to probe-%s across both replicas: %+v, want 2 creates and 1 delete", id, w)
		}
	}
}
