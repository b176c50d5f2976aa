package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Issue 48: a Maestro restart in the middle of a deletion wave never makes
// the real agent apply a deleted work again. Eight clusters are applied,
// then all deleted at once; half of their Jobs are held by a finalizer so
// that their deletions are in flight when Maestro stops. Maestro restarts,
// the finalizers go, and Sentinel-like rounds run until every cluster is
// Finalized. A watch on the kube-apiserver, opened before the deletion
// wave, must see no Namespace, ConfigMap or Job of those clusters added
// again: a work resent after its deletion would make the agent re-create
// its objects.
func TestMaestroRestartDuringDeletionWaveRecreatesNothing(t *testing.T) {
	e := startEnv(t)
	kc := kubeClient(t, e.st)
	const n = 8
	cs := make([]*cluster, n)
	for i := range cs {
		cs[i] = newCluster(t, e.st, e.api, e.topic)
	}
	for _, c := range cs {
		c.reconcileUntil(90*time.Second, "Applied True", wantConditions("Applied=True/BundlesApplied"))
	}
	held := cs[:n/2]
	for _, c := range held {
		setJobFinalizers(t, kc, c.jobName(), []string{holdFinalizer})
		t.Cleanup(func() { clearFinalizers(kc, c.jobName()) })
	}
	w := watchAdded(t, kc, cs)
	deleted := time.Now().UTC().Format(time.RFC3339)
	for _, c := range cs {
		c.gen = 2
		e.api.setCluster(c.id, c.gen, map[string]any{"deleted_time": deleted})
	}
	for _, c := range held {
		c.reconcileUntil(60*time.Second, "the Job's deletion held", wantConditions("Finalized=False/DeletionPending"))
	}

	maestroScript(t, "stop")
	for _, c := range cs {
		publish(t, e.st, e.topic, c.id, c.gen) // arrives while Maestro is down: redelivered
	}
	for _, c := range held {
		setJobFinalizers(t, kc, c.jobName(), nil)
	}
	time.Sleep(2 * time.Second)
	maestroScript(t, "start")

	for _, c := range cs {
		c.reconcileUntilOrHeal(kc, 240*time.Second, "Finalized True after the restart", wantConditions("Finalized=True/CleanupConfirmed"))
	}
	eventually(t, 60*time.Second, "every Job gone from the API server", func() error {
		for _, c := range cs {
			if n, err := jobCount(kc, c.id); err != nil || n != 0 {
				return fmt.Errorf("cluster %s: %d jobs (%v)", c.id, n, err)
			}
		}
		return nil
	})
	for _, a := range w.stop() {
		t.Errorf("re-created after the deletion wave began: %s", a)
	}
}

// addedWatch records every object of a set of clusters that the
// kube-apiserver reports added after the watch began.
type addedWatch struct {
	cancel context.CancelFunc
	done   sync.WaitGroup
	mu     sync.Mutex
	added  []string
}

// watchAdded watches the clusters' Namespaces (cluster-<id>), their
// cluster-info ConfigMaps and their Jobs (validate-<id> in default) from
// the current resource version on, re-watching from the last one seen when
// a watch ends, until stop.
//
// It first waits until every one of those objects exists in the API
// server: Applied=True says Maestro took the create, not that the agent
// applied it, so a watch opened at once would see a late first apply as
// an addition (the flake of stop 60). An object added after that is a
// second one, reported with the uid the first had.
func watchAdded(t *testing.T, kc *kubernetes.Clientset, cs []*cluster) *addedWatch {
	t.Helper()
	names := map[string]bool{}
	for _, c := range cs {
		names["Namespace "+c.namespace()] = true
		names["ConfigMap "+c.namespace()+"/cluster-info"] = true
		names["Job default/"+c.jobName()] = true
	}
	first := appliedUIDs(t, kc, cs)
	ctx, cancel := context.WithCancel(context.Background())
	w := &addedWatch{cancel: cancel}
	type source struct {
		kind string
		list func() (string, error)
		open func(rv string) (watch.Interface, error)
	}
	sources := []source{
		{"Namespace", func() (string, error) {
			l, err := kc.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		}, func(rv string) (watch.Interface, error) {
			return kc.CoreV1().Namespaces().Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		}},
		{"ConfigMap", func() (string, error) {
			l, err := kc.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		}, func(rv string) (watch.Interface, error) {
			return kc.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		}},
		{"Job", func() (string, error) {
			l, err := kc.BatchV1().Jobs("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		}, func(rv string) (watch.Interface, error) {
			return kc.BatchV1().Jobs("default").Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		}},
	}
	for _, s := range sources {
		rv, err := s.list()
		if err != nil {
			t.Fatalf("list %ss: %v", s.kind, err)
		}
		w.done.Add(1)
		go func() {
			defer w.done.Done()
			for ctx.Err() == nil {
				wi, err := s.open(rv)
				if err != nil {
					time.Sleep(time.Second)
					continue
				}
				for ev := range wi.ResultChan() {
					obj, ok := ev.Object.(metav1.Object)
					if !ok { // an error event (410 Gone): re-watch from now on
						if r, err := s.list(); err == nil {
							rv = r
						}
						break
					}
					rv = obj.GetResourceVersion()
					name := s.kind + " " + obj.GetName()
					if obj.GetNamespace() != "" {
						name = s.kind + " " + obj.GetNamespace() + "/" + obj.GetName()
					}
					if ev.Type == watch.Added && names[name] {
						w.mu.Lock()
						w.added = append(w.added, fmt.Sprintf("%s (uid %s, was %s) at %s", name, obj.GetUID(), first[name], time.Now().Format(time.RFC3339Nano)))
						w.mu.Unlock()
					}
				}
				wi.Stop()
			}
		}()
	}
	t.Cleanup(func() { cancel(); w.done.Wait() })
	return w
}

// appliedUIDs waits until the agent has applied every cluster's
// Namespace, ConfigMap and Job, and returns their uids by the names
// watchAdded uses. It logs what was still missing at its first look.
func appliedUIDs(t *testing.T, kc *kubernetes.Clientset, cs []*cluster) map[string]types.UID {
	t.Helper()
	ctx := context.Background()
	uids := map[string]types.UID{}
	look := func() error {
		for _, c := range cs {
			ns, err := kc.CoreV1().Namespaces().Get(ctx, c.namespace(), metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("Namespace %s: %w", c.namespace(), err)
			}
			cm, err := kc.CoreV1().ConfigMaps(c.namespace()).Get(ctx, "cluster-info", metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("ConfigMap %s/cluster-info: %w", c.namespace(), err)
			}
			job, err := kc.BatchV1().Jobs("default").Get(ctx, c.jobName(), metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("Job default/%s: %w", c.jobName(), err)
			}
			uids["Namespace "+c.namespace()] = ns.UID
			uids["ConfigMap "+c.namespace()+"/cluster-info"] = cm.UID
			uids["Job default/"+c.jobName()] = job.UID
		}
		return nil
	}
	start := time.Now()
	if err := look(); err != nil {
		eventually(t, 60*time.Second, "every cluster's objects applied by the agent", look)
		t.Logf("at Applied=True the agent had not applied everything yet (%v); it had %v later", err, time.Since(start).Round(time.Millisecond))
	}
	return uids
}

// stop ends the watches and returns what they saw added.
func (w *addedWatch) stop() []string {
	w.cancel()
	w.done.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.added
}
