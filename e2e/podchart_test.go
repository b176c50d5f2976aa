package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// podGrace is the pod's terminationGracePeriodSeconds in these tests: above
// the broker's shutdown_timeout (rabbitBroker: 20s), as the chart's default
// (45s) is above the adapter's default (30s), and short enough that a
// liveness kill of a stopped process does not take the chart's 45 s.
const podGrace = 30

// podAPITimeout is the pod's HyperFleet API client timeout in TestPodChart:
// longer than podDrain holds a status PUT, shorter than the broker's
// shutdown_timeout (20s).
const podAPITimeout = 15 * time.Second

// TestPodChart installs the chart on a cluster that runs pods, as
// hyperfleet-infra installs adapters (the chart's values, the adapter
// config with --set-file, broker.yaml with --set-file; the task config and
// bundles are the chart's own onprem example, see the install below), and
// checks on the running pod what only a real node checks:
//   - it is Running but not Ready while the HyperFleet API does not answer,
//     and Ready once it does (the chart's readiness probe on /readyz);
//   - it consumes events to status PUTs through Maestro and the real agent;
//   - a process that stops answering is restarted by the chart's liveness
//     probe (local node only: the process is stopped through containerd);
//   - SIGTERM from the kubelet (pod deletion) drains the in-flight event
//     within the grace period: the status is written once, exit code 0.
func TestPodChart(t *testing.T) {
	st := requireStack(t)
	pc := requirePodCluster(t)
	topic := unique("e2e-pod-")
	apiAddr, err := stacktest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	// The API's URL goes into the config before the API answers.
	api := &hyperfleetAPI{&stacktest.API{URL: "http://" + apiAddr}}
	dir := newAdapterDir(t, st, api, topic, rabbitBroker(st, topic))
	files := stacktest.FilesIn(dir)
	// podDrain holds a status PUT for seconds (the pod's deletion, the
	// queue checks): within the client's timeout, so that what reaches
	// the API is the one PUT, not a retry of a PUT that timed out.
	if _, err := stacktest.RewriteYAML(files.Adapter, files.Adapter,
		map[string]any{"clients.hyperfleet_api.timeout": podAPITimeout.String()}); err != nil {
		t.Fatal(err)
	}
	r := installChart(t, pc, chartInstall{
		values: map[string]any{
			"adapterConfig":                 map[string]any{"hyperfleetApi": map[string]any{"baseUrl": api.URL}, "log": map[string]any{"level": "debug"}},
			"livenessProbe":                 map[string]any{"periodSeconds": 2, "timeoutSeconds": 1, "failureThreshold": 2},
			"terminationGracePeriodSeconds": podGrace,
		},
		// adapterTaskConfig.yaml is not set: it would replace the chart's
		// task config and bundle files, and the onprem task config refers
		// to its bundles by file (the chart's defaults are that example).
		setFiles: map[string]string{"adapterConfig.yaml": files.Adapter, "broker.yaml": files.Broker},
		env:      map[string]string{"MAESTRO_CONSUMER": st.consumer, "VALIDATOR_IMAGE": "busybox:1.36"},
	})

	t.Run("not Ready while the HyperFleet API does not answer", func(t *testing.T) {
		start := time.Now()
		eventually(t, 90*time.Second, "the container running", func() error {
			p := r.pod()
			if s, ok := adapterStatus(p); !ok || s.State.Running == nil {
				return fmt.Errorf("pod %s phase %s, container %+v", p.Name, p.Status.Phase, s.State)
			}
			return nil
		})
		t.Logf("container running %v after install", time.Since(start).Round(time.Millisecond))
		// Several readiness periods (2 s) with the API down: never Ready.
		for i := 0; i < 8; i++ {
			if s := podCondition(r.pod(), corev1.PodReady); s == corev1.ConditionTrue {
				t.Fatalf("the pod is Ready while the HyperFleet API at %s does not answer", api.URL)
			}
			time.Sleep(time.Second)
		}
	})
	served, err := stacktest.StartAPI(stacktest.APIOptions{Addr: apiAddr})
	if err != nil {
		t.Fatalf("start the API on %s: %v", apiAddr, err)
	}
	t.Cleanup(served.Close)
	api.API = served
	start := time.Now()
	r.waitReady(60 * time.Second)
	t.Logf("Ready %v after the API answered", time.Since(start).Round(time.Millisecond))

	t.Run("events to status through Maestro and the agent", func(t *testing.T) {
		cl := newCluster(t, st, api, topic)
		cl.reconcileUntil(120*time.Second, "created: Applied and Available True",
			wantConditions("Applied=True/BundlesApplied", "Available=True/BundlesAvailable", "Finalized=False/NotDeleting"))
		if pc.Local {
			m, err := stacktest.Scrape("http://127.0.0.1:" + r.listen + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			if n := m.Sum("bundle_adapter_bundle_operations_total", `operation="create"`, `state="done"`); n < 1 {
				t.Errorf("%v bundles created by the pod", n)
			}
		}
	})
	t.Run("liveness failure restarts the container", func(t *testing.T) { podLiveness(t, r) })
	t.Run("SIGTERM from the kubelet drains within the grace period", func(t *testing.T) { podDrain(t, st, api, r, topic) })
}

// podLiveness stops the adapter's process (SIGSTOP through the node's
// containerd), so that /healthz stops answering while the process lives;
// the chart's liveness probe must make the kubelet restart the container.
// Once the kubelet decided (its Killing event), the process is continued,
// so it stops on the kubelet's SIGTERM instead of waiting for SIGKILL.
func podLiveness(t *testing.T, r *podRelease) {
	if !r.pc.Local {
		t.Skip("stopping the process needs the node's containerd (hack/node.sh ctr); not on this cluster")
	}
	p := r.waitReady(30 * time.Second)
	s, _ := adapterStatus(p)
	restarts := s.RestartCount
	pid := containerPID(t, r.pc, s.ContainerID)
	signal(t, r.pc, pid, "SIGSTOP")
	eventually(t, 60*time.Second, "the kubelet killing the container for its liveness probe", func() error {
		evs, err := r.kc.CoreV1().Events(r.ns).List(context.Background(), metav1.ListOptions{
			FieldSelector: "involvedObject.name=" + p.Name + ",reason=Killing"})
		if err != nil {
			return err
		}
		for _, e := range evs.Items {
			if strings.Contains(e.Message, "liveness") {
				return nil
			}
		}
		return fmt.Errorf("%d Killing events, none for liveness", len(evs.Items))
	})
	signal(t, r.pc, pid, "SIGCONT")
	eventually(t, 90*time.Second, "the container restarted and Ready", func() error {
		p := r.pods()
		if len(p) != 1 {
			return fmt.Errorf("%d pods", len(p))
		}
		s, _ := adapterStatus(p[0])
		if s.RestartCount <= restarts || podCondition(p[0], corev1.PodReady) != corev1.ConditionTrue {
			return fmt.Errorf("restarts %d (before %d), Ready %s", s.RestartCount, restarts, podCondition(p[0], corev1.PodReady))
		}
		return nil
	})
}

// containerPID is the host PID of a container ("containerd://<id>"), from
// the node's containerd.
func containerPID(t *testing.T, pc *stacktest.PodCluster, containerID string) string {
	t.Helper()
	id := strings.TrimPrefix(containerID, "containerd://")
	out, err := pc.Ctr("tasks", "ls")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == id {
			return f[1]
		}
	}
	t.Fatalf("container %s not among containerd's tasks:\n%s", id, out)
	return ""
}

// signal sends sig to the task whose PID is pid, through containerd.
func signal(t *testing.T, pc *stacktest.PodCluster, pid, sig string) {
	t.Helper()
	out, err := pc.Ctr("tasks", "ls")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[1] == pid {
			if _, err := pc.Ctr("tasks", "kill", "--signal", sig, f[0]); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no containerd task with pid %s", pid)
}

// podDrain holds an event in flight (its status PUT waits), deletes the
// pod (the kubelet sends SIGTERM and waits the grace period), lets the
// event finish once the adapter is stopping, and wants the container to
// exit 0 before the grace period ends, with the status written once. The
// event's message must stay unacked (not acked, not given back) while its
// status PUT waits, before and after the SIGTERM, and be acked once it is
// done: the queue is empty when the pod is gone, and the replacement pod,
// Ready, gets no redelivery to report again.
func podDrain(t *testing.T, st *stack, api *hyperfleetAPI, r *podRelease, topic string) {
	timeout := shutdownTimeout(t, rabbitBroker(st, topic))
	queue := topic + "-e2e"
	p := r.waitReady(60 * time.Second)
	cl := newCluster(t, st, api, topic)
	held, release := api.HoldPuts()
	defer release()
	before := api.StatusCount(cl.id)
	_, putsBefore := api.Counts()
	publish(t, st, topic, cl.id, cl.gen)
	select {
	case <-held:
	case <-time.After(90 * time.Second):
		t.Fatal("no status PUT came to hold")
	}
	heldAt := time.Now()
	wantDepth(t, queue, 0, 1, "while the event's status PUT waits")
	start := time.Now()
	if err := r.kc.CoreV1().Pods(r.ns).Delete(context.Background(), p.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		term *corev1.ContainerStateTerminated
		err  error
	}
	done := make(chan result, 1)
	go func() {
		term, err := watchTermination(r.kc, r.ns, p.Name, p.ResourceVersion, podGrace*time.Second+30*time.Second)
		done <- result{term, err}
	}()
	var log string
	eventually(t, 15*time.Second, "the adapter stopping", func() error {
		log = r.logs(p.Name)
		if !strings.Contains(log, `"msg":"stopping: finishing in-flight events"`) {
			return fmt.Errorf("no stopping line in the pod's log yet")
		}
		return nil
	})
	// The event stays in flight across the SIGTERM (the check takes about
	// a second), its message neither acked nor given back.
	wantDepth(t, queue, 0, 1, "after the SIGTERM, the event's status PUT still waiting")
	release()
	heldFor := time.Since(heldAt)
	// The last log lines, read while the container is still there.
	for i := 0; i < 50 && !strings.Contains(log, `"msg":"stopped"`); i++ {
		if l := r.logs(p.Name); l != "" {
			log = l
		}
		time.Sleep(100 * time.Millisecond)
	}
	res := <-done
	took := time.Since(start)
	if res.err != nil {
		t.Fatal(res.err)
	}
	switch {
	case res.term == nil:
		t.Errorf("the pod went without a terminated state of its container being seen")
	case res.term.ExitCode != 0:
		t.Errorf("exit code %d (%s) after SIGTERM, want 0 (137: killed at the end of the grace period)", res.term.ExitCode, res.term.Reason)
	}
	if took >= podGrace*time.Second {
		t.Errorf("the pod took %v to go, the grace period is %ds", took, podGrace)
	}
	if !strings.Contains(log, `"msg":"stopped"`) || strings.Contains(log, "did not finish in time") {
		t.Errorf("the adapter did not drain cleanly; log tail:\n%s", stacktest.LastLines(log, 10))
	}
	// Acked once done, not given back: nothing is left for the replacement.
	wantDepth(t, queue, 0, 0, "once the pod is gone")
	t.Logf("pod deleted: container exit %v after %v (shutdown_timeout %v, grace %ds)", res.term, took.Round(time.Millisecond), timeout, podGrace)
	// The Deployment's replacement consumes the queue: a redelivered event
	// would be reported again.
	start = time.Now()
	next := r.waitReady(120 * time.Second)
	time.Sleep(3 * time.Second)
	_, puts := api.Counts()
	if n := api.StatusCount(cl.id); n != before+1 || puts != putsBefore+1 {
		t.Errorf("%d status PUTs recorded for the in-flight event (%d received), want 1 (held %v, client timeout %v)",
			n-before, puts-putsBefore, heldFor.Round(time.Millisecond), podAPITimeout)
	}
	t.Logf("status PUT held %v; replacement %s Ready %v after the old pod went; %d status PUT for the event",
		heldFor.Round(time.Millisecond), next.Name, time.Since(start).Round(time.Millisecond), api.StatusCount(cl.id)-before)
}

// wantDepth fails the test unless queue holds ready messages ready for
// delivery and unacked delivered but not acked.
func wantDepth(t *testing.T, queue string, ready, unacked int, when string) {
	t.Helper()
	gotReady, gotUnacked, err := stacktest.QueueDepth(queue)
	if err != nil {
		t.Fatal(err)
	}
	if gotReady != ready || gotUnacked != unacked {
		t.Errorf("%s: queue %s has %d ready and %d unacked messages, want %d and %d (unacked: in flight; ready: given back)",
			when, queue, gotReady, gotUnacked, ready, unacked)
	}
}
