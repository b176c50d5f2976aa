package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
)

// clusterLabel is the label the example's bundles put on the objects they
// apply; the kube-apiserver watch records only those.
const clusterLabel = "hyperfleet.io/cluster-id"

// kubeKinds are the objects of a live cluster on the kube-apiserver (the
// example's Namespace and validation Job); the Job carries the generation.
var kubeKinds = []string{"Namespace", "Job"}

// kubeWatch records what real agents apply on the kube-apiserver
// (kube.jsonl): every add and delete of a labelled Namespace or Job, and
// the listing at the end.
type kubeWatch struct {
	cs  kubernetes.Interface
	rec *recorder

	mu   sync.Mutex
	live map[string]check.KubeObject // by kind/namespace/name
}

// startKubeWatch watches the kube-apiserver of kubeconfig until ctx ends.
// It returns once both informers have listed.
func startKubeWatch(ctx context.Context, kubeconfig string, rec *recorder) (*kubeWatch, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	w := &kubeWatch{cs: cs, rec: rec, live: map[string]check.KubeObject{}}
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = clusterLabel }))
	for _, inf := range []cache.SharedIndexInformer{f.Core().V1().Namespaces().Informer(), f.Batch().V1().Jobs().Informer()} {
		if _, err := inf.AddEventHandler(w.handler()); err != nil {
			return nil, err
		}
	}
	f.Start(ctx.Done())
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for typ, ok := range f.WaitForCacheSync(wctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("kube-apiserver watch of %v did not sync", typ)
		}
	}
	return w, nil
}

// handler records adds and deletes; an update that changes the uid (a
// delete and create the watch missed, seen after a relist) is both.
func (w *kubeWatch) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { w.record("added", obj) },
		UpdateFunc: func(old, cur any) {
			o, ok1 := kubeObject("", old)
			c, ok2 := kubeObject("", cur)
			if ok1 && ok2 && o.UID != c.UID {
				w.record("deleted", old)
				w.record("added", cur)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			w.record("deleted", obj)
		},
	}
}

func (w *kubeWatch) record(event string, obj any) {
	o, ok := kubeObject(event, obj)
	if !ok {
		return
	}
	w.rec.add(o)
	k := o.Kind + "/" + o.Namespace + "/" + o.Name
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case event == "added":
		w.live[k] = o
	case event == "deleted" && w.live[k].UID == o.UID:
		delete(w.live, k)
	}
}

// holds reports whether the kube-apiserver holds, as last watched, an
// object of cluster of kind (a Job only at generation, when given).
func (w *kubeWatch) holds(cluster, kind, generation string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.live {
		if o.Cluster == cluster && o.Kind == kind && (generation == "" || o.Generation == generation) {
			return true
		}
	}
	return false
}

// list records every labelled Namespace and Job on the kube-apiserver now
// (event final) and returns when it listed.
func (w *kubeWatch) list(ctx context.Context) (time.Time, error) {
	opts := metav1.ListOptions{LabelSelector: clusterLabel}
	at := time.Now()
	nss, err := w.cs.CoreV1().Namespaces().List(ctx, opts)
	if err != nil {
		return time.Time{}, fmt.Errorf("list namespaces: %w", err)
	}
	jobs, err := w.cs.BatchV1().Jobs("").List(ctx, opts)
	if err != nil {
		return time.Time{}, fmt.Errorf("list jobs: %w", err)
	}
	for i := range nss.Items {
		w.record("final", &nss.Items[i])
	}
	for i := range jobs.Items {
		w.record("final", &jobs.Items[i])
	}
	return at, nil
}

// kubeObject is obj's history line: its kind, name, uid, cluster label,
// a Job's GENERATION environment value and whether it is terminating.
func kubeObject(event string, obj any) (check.KubeObject, bool) {
	o := check.KubeObject{Event: event, At: time.Now()}
	var meta *metav1.ObjectMeta
	switch v := obj.(type) {
	case *corev1.Namespace:
		o.Kind, meta = "Namespace", &v.ObjectMeta
	case *batchv1.Job:
		o.Kind, meta = "Job", &v.ObjectMeta
		o.Generation = jobGeneration(v)
	default:
		return o, false
	}
	o.Namespace, o.Name, o.UID = meta.Namespace, meta.Name, string(meta.UID)
	o.Cluster = meta.Labels[clusterLabel]
	o.Terminating = meta.DeletionTimestamp != nil
	return o, true
}

func jobGeneration(j *batchv1.Job) string {
	for _, c := range j.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == "GENERATION" {
				return e.Value
			}
		}
	}
	return ""
}

// realAgents are real `maestro agent`s run by the repository's
// hack/agent.sh on the kube-apiserver hack/soak.sh started (its
// environment names the ports and run directories).
type realAgents struct {
	hackDir string
}

func (r realAgents) script(args ...string) error {
	cmd := exec.Command(filepath.Join(r.hackDir, "agent.sh"), args...)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("agent.sh %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (r realAgents) start(consumers ...string) error {
	return r.script(append([]string{"start"}, consumers...)...)
}

func (r realAgents) stop(consumers ...string) error {
	return r.script(append([]string{"stop"}, consumers...)...)
}

// realRestarts serialises restarts of real agents: the schedule's
// agent-restart and a remedy may come at once.
var realRestarts sync.Mutex

// restart stops the real agent of consumer (SIGTERM) and starts it again.
func (r realAgents) restart(consumer string) error {
	realRestarts.Lock()
	defer realRestarts.Unlock()
	if err := r.stop(consumer); err != nil {
		return err
	}
	time.Sleep(time.Second)
	return r.start(consumer)
}
