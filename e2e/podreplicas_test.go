package e2e

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// rollTag is the second tag of the project's image that the rolling
// upgrade moves the pods to: the same image under another name, so the
// Deployment's pod template changes and every pod is replaced.
const rollTag = "e2e-roll"

// TestPodReplicas installs the chart with two replicas, as the chart's
// defaults ship them for production (rolling update with maxSurge 1 and
// maxUnavailable 0, a PodDisruptionBudget of maxUnavailable 1), and checks
// on a real node what replicas promise:
//   - a helm upgrade to a second image while events stream in loses no
//     event (every event's status is reported, none twice) and writes no
//     bundle twice (Maestro's version of every bundle stays 1, the same
//     bundle, created once before or during the roll);
//   - a drain of the node is held by the chart's PodDisruptionBudget: one
//     pod is evicted, the other's eviction is refused (429) while the first
//     has no replacement, and the pod left goes on consuming.
//
// Two replicas on one node cannot share the host's ports, so the pods run
// on the node's pod network, not on hostNetwork, and reach RabbitMQ,
// Maestro and the recording API through forwarders on the node's bridge
// address (podServices).
func TestPodReplicas(t *testing.T) {
	st := requireStack(t)
	pc := requirePodCluster(t)
	podSt := podServices(t, st, pc)
	second := strings.TrimSuffix(requireImage(t), ":latest") + ":" + rollTag
	start := time.Now()
	mustPodman(t, "tag", requireImage(t), second)
	if err := pc.Load(second); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %s into the cluster in %v", second, time.Since(start).Round(time.Millisecond))

	topic := unique("e2e-podrep-")
	served, err := stacktest.StartAPI(stacktest.APIOptions{Addr: net.JoinHostPort(pc.HostAddr, "0")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	api := &hyperfleetAPI{served}
	dir := newAdapterDir(t, podSt, api, topic, rabbitBroker(podSt, topic))
	files := stacktest.FilesIn(dir)
	start = time.Now()
	r := installChart(t, pc, chartInstall{
		podNetwork: true, replicas: 2, rabbitURL: podSt.rabbitURL,
		values: map[string]any{
			"adapterConfig":                 map[string]any{"hyperfleetApi": map[string]any{"baseUrl": api.URL}, "log": map[string]any{"level": "debug"}},
			"terminationGracePeriodSeconds": podGrace,
		},
		setFiles: map[string]string{"adapterConfig.yaml": files.Adapter, "broker.yaml": files.Broker},
		env:      map[string]string{"MAESTRO_CONSUMER": st.consumer, "VALIDATOR_IMAGE": "busybox:1.36"},
	})
	first := r.waitReadyN(2, 120*time.Second)
	t.Logf("2 pods Ready %v after install: %s, %s", time.Since(start).Round(time.Millisecond), first[0].Status.PodIP, first[1].Status.PodIP)

	t.Run("helm upgrade to a second image during a stream of events", func(t *testing.T) {
		podRoll(t, st, api, r, topic, second, first)
	})
	t.Run("the PodDisruptionBudget holds during a drain", func(t *testing.T) {
		podDrainNode(t, st, api, r, topic)
	})
}

// rollBefore is how many clusters are applied before the upgrade; the
// stream sends their events again (as Sentinel does) and, in between, the
// first and only event of a new cluster each time.
const rollBefore = 8

// podRoll: clusters applied before the upgrade; then a stream, from before
// the helm upgrade until after the rollout, alternating an event for one of
// those clusters and the one event of a new cluster. A new cluster's event
// is the only one of its resource (nothing to coalesce or supersede), so it
// must be reported exactly once: none fewer (lost), none more (run again
// after a redelivery). Every bundle, of the clusters before the roll and
// of the new ones, must be the one created, at Maestro's version 1 (written
// once), and the queue empty at the end.
func podRoll(t *testing.T, st *stack, api *hyperfleetAPI, r *podRelease, topic, image string, old []corev1.Pod) {
	before := make([]string, rollBefore)
	for i := range before {
		before[i] = unique("c")
		api.setCluster(before[i], 1, nil)
	}
	pub, err := stacktest.DialPublisher(st.rabbitURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })
	var mu sync.Mutex
	published := map[string]int{}
	send := func(id string) {
		if err := pub.Publish(context.Background(), topic, "cluster.reconcile", "", reconcileEvent(id, 1)); err != nil {
			t.Errorf("publish: %v", err)
			return
		}
		mu.Lock()
		published[id]++
		mu.Unlock()
	}
	for _, id := range before {
		send(id)
	}
	waitStatuses(t, api, before, published, &mu, 90*time.Second)
	source := "e2e-" + topic
	created := bundleVersions(t, st, source)
	if len(created) != 2*len(before) {
		t.Fatalf("%d bundles for %d clusters before the upgrade, want 2 each: %v", len(created), len(before), created)
	}
	resent := map[string]int{}
	for _, id := range before {
		resent[id] = api.StatusCount(id)
	}

	// The stream: an event every 200 ms, alternately a resend for a
	// cluster of before the roll and a new cluster's one event.
	var fresh []string
	stop, streamed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(streamed)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if i%2 == 0 {
				send(before[(i/2)%len(before)])
				continue
			}
			id := unique("n")
			api.setCluster(id, 1, nil)
			mu.Lock()
			fresh = append(fresh, id)
			mu.Unlock()
			send(id)
		}
	}()
	time.Sleep(2 * time.Second)
	start := time.Now()
	if out, err := r.pc.Helm(r.helm, "upgrade", r.name, "../charts/bundle-adapter", "--namespace", r.ns,
		"--reuse-values", "--set", "image.tag="+rollTag); err != nil {
		close(stop)
		t.Fatalf("helm upgrade: %v\n%s", err, out)
	}
	if out, err := r.pc.KubectlOut("--namespace", r.ns, "rollout", "status", "deployment/"+r.deployment(), "--timeout=240s"); err != nil {
		close(stop)
		t.Fatalf("rollout: %v\n%s", err, out)
	}
	rolled := time.Since(start)
	time.Sleep(3 * time.Second)
	close(stop)
	<-streamed
	mu.Lock()
	total := 0
	for _, n := range published {
		total += n
	}
	ids := append(slices.Clone(before), fresh...)
	mu.Unlock()
	t.Logf("helm upgrade to %s: rollout done in %v; %d events published, %d of them the one event of a new cluster",
		image, rolled.Round(time.Millisecond), total, len(fresh))

	now := r.waitReadyN(2, 60*time.Second)
	for _, p := range now {
		if p.Spec.Containers[0].Image != image {
			t.Errorf("pod %s runs %s after the upgrade, want %s", p.Name, p.Spec.Containers[0].Image, image)
		}
		for _, o := range old {
			if p.UID == o.UID {
				t.Errorf("pod %s of before the upgrade still runs", p.Name)
			}
		}
	}
	// Not fatal: a lost event shows below, cluster by cluster.
	_ = until(120*time.Second, func() error { return shortOfStatuses(api, fresh, published, &mu) })
	eventually(t, 60*time.Second, "the queue empty", func() error {
		ready, unacked, err := stacktest.QueueDepth(topic + "-e2e")
		if err == nil && ready+unacked != 0 {
			err = fmt.Errorf("%d ready, %d unacked", ready, unacked)
		}
		return err
	})
	time.Sleep(5 * time.Second) // a redelivered event would report again
	lost, twice := 0, 0
	for _, id := range fresh {
		switch n := api.StatusCount(id); {
		case n == 0:
			lost++
			t.Errorf("cluster %s: its one event was never reported (lost)", id)
		case n > 1:
			twice++
			t.Errorf("cluster %s: its one event was reported %d times", id, n)
		}
	}
	for _, id := range ids {
		if s := api.LastStatus(id); condition(s, "Applied") != "True/BundlesApplied" {
			t.Errorf("cluster %s: newest status Applied %q, want True/BundlesApplied", id, condition(s, "Applied"))
		}
	}
	reports := 0
	for _, id := range before {
		n := api.StatusCount(id) - resent[id]
		reports += n
		if n > published[id] {
			t.Errorf("cluster %s: %d status PUTs during the roll for %d events", id, n, published[id])
		}
	}
	bundles := bundleVersions(t, st, source)
	if len(bundles) != 2*len(ids) {
		t.Errorf("%d bundles for %d clusters, want 2 each", len(bundles), len(ids))
	}
	for name, b := range bundles {
		if b.version != 1 || b.deleted {
			t.Errorf("bundle %s: Maestro version %d, deleted %v; want version 1 (written once), not deleted", name, b.version, b.deleted)
		}
		if c, ok := created[name]; ok && c.id != b.id {
			t.Errorf("bundle %s: id %s before the upgrade, %s after (created again)", name, c.id, b.id)
		}
	}
	for _, p := range now {
		if m, err := stacktest.Scrape(podURL(p, r.metrics) + "/metrics"); err == nil {
			t.Logf("pod %s (after the roll): %v events, Maestro writes %v", p.Name, m.Sum("bundle_adapter_events_total"), m.MaestroWrites())
		}
	}
	t.Logf("new clusters: %d events, %d lost, %d reported twice; clusters of before the roll: %d status PUTs for their resent events (coalesced: fewer); %d bundles in Maestro (%d created during the roll)",
		len(fresh), lost, twice, reports, len(bundles), len(bundles)-len(created))
}

// waitStatuses waits until every cluster of ids has as many status PUTs
// as events were published for it.
func waitStatuses(t *testing.T, api *hyperfleetAPI, ids []string, published map[string]int, mu *sync.Mutex, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, "a status PUT for every event", func() error { return shortOfStatuses(api, ids, published, mu) })
}

// shortOfStatuses names the clusters of ids with fewer status PUTs than
// events published for them.
func shortOfStatuses(api *hyperfleetAPI, ids []string, published map[string]int, mu *sync.Mutex) error {
	mu.Lock()
	defer mu.Unlock()
	var short []string
	for _, id := range ids {
		if got, want := api.StatusCount(id), published[id]; got < want {
			short = append(short, fmt.Sprintf("%s %d/%d", id, got, want))
		}
	}
	if len(short) > 0 {
		return fmt.Errorf("clusters short of status PUTs: %v", short)
	}
	return nil
}

// bundleState is what podRoll reads of one of Maestro's bundles.
type bundleState struct {
	id      string
	version int
	deleted bool
}

// bundleVersions lists the bundles of source by name (Maestro's REST API).
func bundleVersions(t *testing.T, st *stack, source string) map[string]bundleState {
	t.Helper()
	out := map[string]bundleState{}
	_, err := stacktest.ListBundles(t.Context(), st.restURL, "source='"+source+"'", 100, func(b stacktest.Bundle) {
		name := b.Metadata.Name
		if _, dup := out[name]; dup {
			t.Errorf("two bundles named %s", name)
		}
		out[name] = bundleState{id: b.ID, version: b.Version, deleted: b.DeletedAt != "" || b.Metadata.DeletionTimestamp != ""}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// podURL is the base URL of one of the release's ports on a pod (pod
// network: the pod's own IP).
func podURL(p corev1.Pod, port string) string {
	return "http://" + net.JoinHostPort(p.Status.PodIP, port)
}

// podDrainNode cordons and drains the node with kubectl as an operator
// would: the chart's PodDisruptionBudget (maxUnavailable 1) lets one pod
// go, and refuses the other's eviction while the first has no replacement
// (the node is cordoned). The pod left must still be Ready and consume an
// event; after uncordon both are Ready again.
func podDrainNode(t *testing.T, st *stack, api *hyperfleetAPI, r *podRelease, topic string) {
	ctx := context.Background()
	pods := r.waitReadyN(2, 60*time.Second)
	node := pods[0].Spec.NodeName
	if pods[1].Spec.NodeName != node {
		t.Skipf("the pods run on two nodes (%s, %s): a drain of one evicts one pod", node, pods[1].Spec.NodeName)
	}
	pdbs := r.kc.PolicyV1().PodDisruptionBudgets(r.ns)
	eventually(t, 60*time.Second, "the PodDisruptionBudget allowing one disruption", func() error {
		pdb, err := pdbs.Get(ctx, r.deployment(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if s := pdb.Status; s.CurrentHealthy != 2 || s.DisruptionsAllowed != 1 {
			return fmt.Errorf("healthy %d of %d expected, %d disruptions allowed", s.CurrentHealthy, s.ExpectedPods, s.DisruptionsAllowed)
		}
		return nil
	})
	t.Cleanup(func() {
		if _, err := r.pc.KubectlOut("uncordon", node); err != nil {
			t.Errorf("uncordon %s: %v", node, err)
		}
	})
	start := time.Now()
	out, drainErr := r.pc.KubectlOut("drain", node, "--pod-selector=app.kubernetes.io/instance="+r.name,
		"--ignore-daemonsets", "--delete-emptydir-data", "--timeout=25s")
	took := time.Since(start)
	if drainErr == nil {
		t.Fatalf("kubectl drain evicted both pods in %v, the PodDisruptionBudget must keep one:\n%s", took, out)
	}
	if !strings.Contains(drainErr.Error(), "disruption budget") {
		t.Errorf("kubectl drain failed, but not for the disruption budget: %v\n%s", drainErr, out)
	}
	// Of the two pods, one is evicted (gone or being deleted) and one left;
	// the evicted pod's replacement stays Pending on the cordoned node.
	var left []corev1.Pod
	pending := 0
	for _, p := range r.pods() {
		switch {
		case slices.ContainsFunc(pods, func(o corev1.Pod) bool { return o.UID == p.UID }):
			left = append(left, p)
		case p.Spec.NodeName == "":
			pending++
		default:
			t.Errorf("pod %s runs on %s during the drain", p.Name, p.Spec.NodeName)
		}
	}
	if len(left) != 1 {
		t.Fatalf("after the drain: %d of the two pods left, want 1", len(left))
	}
	if podCondition(left[0], corev1.PodReady) != corev1.ConditionTrue {
		t.Errorf("the pod left, %s, is not Ready", left[0].Name)
	}
	err := r.kc.CoreV1().Pods(r.ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: left[0].Name, Namespace: r.ns}})
	if !apierrors.IsTooManyRequests(err) {
		t.Errorf("evicting the last pod %s: %v, want 429 Too Many Requests", left[0].Name, err)
	}
	pdb, err := pdbs.Get(ctx, r.deployment(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Status.DisruptionsAllowed != 0 {
		t.Errorf("the PodDisruptionBudget allows %d disruptions with one pod left", pdb.Status.DisruptionsAllowed)
	}
	t.Logf("kubectl drain refused after %v (%s); the evicted pod's replacement is Pending: %d",
		took.Round(time.Millisecond), budgetLine(drainErr), pending)
	// The pod left consumes: one event, one status.
	cl := newCluster(t, st, api, topic)
	cl.reconcileUntil(90*time.Second, "a status from the pod left", wantConditions("Applied=True/BundlesApplied"))

	if _, err := r.pc.KubectlOut("uncordon", node); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	r.waitReadyN(2, 120*time.Second)
	eventually(t, 60*time.Second, "the PodDisruptionBudget allowing one disruption again", func() error {
		pdb, err := pdbs.Get(ctx, r.deployment(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pdb.Status.DisruptionsAllowed != 1 {
			return fmt.Errorf("%d disruptions allowed", pdb.Status.DisruptionsAllowed)
		}
		return nil
	})
	t.Logf("uncordoned: two pods Ready again in %v", time.Since(start).Round(time.Millisecond))
}

// budgetLine is the line of kubectl's error that names the disruption
// budget (else its last line).
func budgetLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for _, l := range lines {
		if strings.Contains(l, "disruption budget") {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
