package main

import (
	"context"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
)

// holdFinalizer holds the old Job's deletion during the recreation, as a
// slow controller would.
const holdFinalizer = "demo.bundle-adapter.io/hold"

// obj is what the demo shows of one object in the API server.
type obj struct {
	exists     bool
	uid        string
	deleting   bool
	finalizers []string
	detail     string // Namespace phase, ConfigMap data, Job's GENERATION env
}

func (a obj) same(b obj) bool {
	return a.exists == b.exists && a.uid == b.uid && a.deleting == b.deleting &&
		a.detail == b.detail && slices.Equal(a.finalizers, b.finalizers)
}

// objChange is one observed change of a watched object.
type objChange struct {
	kind, name    string
	before, after obj
}

// watched names one object the onprem example's bundles put in the cluster.
type watched struct {
	kind, namespace, name string
}

func (w watched) String() string {
	if w.namespace == "" {
		return w.name
	}
	return w.namespace + "/" + w.name
}

// kubeWatcher polls the objects of the sample cluster in the API server and
// reports every change on changes.
type kubeWatcher struct {
	kc      *kubernetes.Clientset
	objects []watched
	changes chan objChange
	stop    context.CancelFunc
	done    chan struct{}
}

func newKubeClient(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 100
	return kubernetes.NewForConfig(cfg)
}

// The objects of the onprem example's bundles for one cluster.
func objectsOf(clusterID string) (ns, cm, job watched) {
	id := strings.ToLower(clusterID)
	return watched{"Namespace", "", "cluster-" + id},
		watched{"ConfigMap", "cluster-" + id, "cluster-info"},
		watched{"Job", "default", "validate-" + id}
}

func startKubeWatcher(kc *kubernetes.Clientset, objects []watched, every time.Duration) *kubeWatcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &kubeWatcher{kc: kc, objects: objects, changes: make(chan objChange, 256), stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		last := make([]obj, len(objects))
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			for i, o := range objects {
				now, err := w.read(ctx, o)
				if err != nil || now.same(last[i]) {
					continue // a failed read shows nothing
				}
				select {
				case w.changes <- objChange{kind: o.kind, name: o.String(), before: last[i], after: now}:
				case <-ctx.Done():
					return
				}
				last[i] = now
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *kubeWatcher) close() {
	w.stop()
	<-w.done
}

func (w *kubeWatcher) read(ctx context.Context, o watched) (obj, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var meta *metav1.ObjectMeta
	var detail string
	var err error
	switch o.kind {
	case "Namespace":
		ns, e := w.kc.CoreV1().Namespaces().Get(ctx, o.name, metav1.GetOptions{})
		if err = e; e == nil {
			meta, detail = &ns.ObjectMeta, "phase "+string(ns.Status.Phase)
		}
	case "ConfigMap":
		cm, e := w.kc.CoreV1().ConfigMaps(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
		if err = e; e == nil {
			meta, detail = &cm.ObjectMeta, "cluster_id="+cm.Data["cluster_id"]+" cluster_name="+cm.Data["cluster_name"]
		}
	case "Job":
		job, e := w.kc.BatchV1().Jobs(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
		if err = e; e == nil {
			meta = &job.ObjectMeta
			for _, c := range job.Spec.Template.Spec.Containers {
				for _, e := range c.Env {
					if e.Name == "GENERATION" {
						detail = "GENERATION=" + e.Value
					}
				}
			}
		}
	}
	switch {
	case apierrors.IsNotFound(err):
		return obj{}, nil
	case err != nil:
		return obj{}, err
	}
	return obj{exists: true, uid: string(meta.UID), deleting: meta.DeletionTimestamp != nil,
		finalizers: meta.Finalizers, detail: detail}, nil
}

// setHold adds (on) or removes (off) the hold finalizer on the Job. A Job
// that is gone needs no release.
func setHold(ctx context.Context, kc *kubernetes.Clientset, job watched, on bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		j, err := kc.BatchV1().Jobs(job.namespace).Get(ctx, job.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) && !on {
			return nil
		}
		if err != nil {
			return err
		}
		has := slices.Contains(j.Finalizers, holdFinalizer)
		switch {
		case on && has, !on && !has:
			return nil
		case on:
			j.Finalizers = append(j.Finalizers, holdFinalizer)
		default:
			j.Finalizers = slices.DeleteFunc(j.Finalizers, func(f string) bool { return f == holdFinalizer })
		}
		_, err = kc.BatchV1().Jobs(job.namespace).Update(ctx, j, metav1.UpdateOptions{})
		return err
	})
}
