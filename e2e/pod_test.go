package e2e

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundle-adapter/bundle-adapter/charts"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// The chart's pod on a cluster that runs pods (stacktest.PodCluster: the
// local node of hack/node.sh, or any cluster the environment names). The
// chart is installed with helm as hyperfleet-infra's helmfile installs
// adapters: the chart's values plus --set-file of the adapter config (and,
// where the task config is self-contained, of the task config and of
// broker.yaml). The pod uses hostNetwork: RabbitMQ, Maestro and the
// recording API listen on this host's loopback. Replicas that would collide
// on the host's ports run on the pod network instead (chartInstall.podNetwork)
// and reach those services through forwarders (podServices).

var (
	podImageOnce sync.Once
	podImageErr  error
)

// requirePodCluster returns the cluster, skipping when none is up (or
// failing with REQUIRE_NODE=1, as CI sets once the node came up), and
// loads the image `make image` builds into it once per run.
func requirePodCluster(t *testing.T) *stacktest.PodCluster {
	t.Helper()
	pc, err := stacktest.PodClusterFromEnv("..")
	if err != nil {
		if os.Getenv("REQUIRE_NODE") == "1" {
			t.Fatalf("pod cluster: %v (REQUIRE_NODE=1)", err)
		}
		t.Skipf("no cluster that runs pods: %v", err)
	}
	img := requireImage(t)
	podImageOnce.Do(func() {
		start := time.Now()
		if podImageErr = pc.Load(img); podImageErr == nil {
			t.Logf("loaded %s into the cluster in %v", img, time.Since(start).Round(time.Millisecond))
		}
	})
	if podImageErr != nil {
		t.Fatal(podImageErr)
	}
	return pc
}

// podRelease is one helm release of the chart in a namespace of its own.
type podRelease struct {
	t       *testing.T
	pc      *stacktest.PodCluster
	kc      *kubernetes.Clientset
	helm    string
	name    string
	ns      string
	listen  string // the pod's --listen port (hostNetwork: on the node)
	metrics string // its --metrics-listen port
}

// chartInstall says how a test installs the chart: values beyond the
// common ones, and --set-file values (key => file).
type chartInstall struct {
	values   map[string]any
	setFiles map[string]string
	env      map[string]string // the chart's env list (replaces its defaults)
	ns       string            // the release's namespace; empty: a new name
	// podNetwork runs the pods on the cluster's pod network, not on
	// hostNetwork (the default), with replicas pods from the start; they
	// reach this host's services at the addresses of podServices, and
	// rabbitURL is the broker's URL they use (the chart's Secret).
	podNetwork bool
	replicas   int
	rabbitURL  string
}

// installChart installs the chart with one replica on hostNetwork (or, with
// podNetwork, in.replicas on the pod network) and returns without waiting
// for the pods. The release and namespace go when the test ends.
func installChart(t *testing.T, pc *stacktest.PodCluster, in chartInstall) *podRelease {
	t.Helper()
	helm, err := charts.Helm("..")
	if err != nil {
		t.Fatalf("%v (hack/e2e.sh runs hack/helm.sh build)", err)
	}
	ports, err := stacktest.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	r := &podRelease{t: t, pc: pc, kc: podClient(t, pc), helm: helm, name: "ba", ns: in.ns,
		listen: ports[0], metrics: ports[1]}
	if r.ns == "" {
		r.ns = unique("e2e-pod-")
	}
	values := map[string]any{
		// Zero first: hostNetwork is set on the Deployment before any pod
		// starts (the chart has no value for it), then one replica.
		"replicaCount": 0,
		"image":        map[string]any{"registry": "localhost", "repository": "bundle-adapter", "tag": "latest", "pullPolicy": "Never"},
		"args": []string{"serve", "--config=/etc/adapter/adapter-config.yaml", "--task-config=/etc/adapter/task-config.yaml",
			"--broker-config=/etc/broker/broker.yaml", "--listen=:" + r.listen, "--metrics-listen=:" + r.metrics},
		"containerPorts": []map[string]any{
			{"containerPort": mustAtoi(t, r.listen), "name": "http", "protocol": "TCP"},
			{"containerPort": mustAtoi(t, r.metrics), "name": "metrics", "protocol": "TCP"},
		},
		"readinessProbe": map[string]any{"periodSeconds": 2, "failureThreshold": 1, "timeoutSeconds": 2},
		"env":            envList(in.env, pc, in.podNetwork),
		// The local node's taint (hack/node.sh); harmless elsewhere.
		"tolerations": []map[string]any{{"key": "bundle-adapter.io/node", "operator": "Exists", "effect": "NoSchedule"}},
	}
	if in.podNetwork {
		values["replicaCount"] = max(in.replicas, 1)
	}
	for k, v := range in.values {
		values[k] = v
	}
	vf := filepath.Join(t.TempDir(), "values.yaml")
	b, err := yaml.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, vf, string(b))
	args := []string{"upgrade", "--install", r.name, "../charts/bundle-adapter", "--namespace", r.ns, "--create-namespace",
		"--values", vf}
	for k, f := range in.setFiles {
		args = append(args, "--set-file", k+"="+f)
	}
	start := time.Now()
	if out, err := pc.Helm(helm, args...); err != nil {
		t.Fatalf("helm install: %v\n%s", err, out)
	}
	t.Cleanup(r.uninstall)
	// The chart reads the RabbitMQ URL from this Secret when
	// broker.rabbitmq.url is empty (its default, as values.yaml tells
	// operators to create it), and the pod does not start without it.
	rabbit := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bundle-adapter-rabbitmq", Namespace: r.ns},
		StringData: map[string]string{"url": cmp.Or(in.rabbitURL, envOr("E2E_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/"))}}
	if _, err := r.kc.CoreV1().Secrets(r.ns).Create(context.Background(), rabbit, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create the RabbitMQ secret: %v", err)
	}
	if !in.podNetwork {
		r.kubectl("patch", "deployment", r.deployment(), "--type=merge", "-p",
			`{"spec":{"replicas":1,"template":{"spec":{"hostNetwork":true,"dnsPolicy":"ClusterFirstWithHostNet"}}}}`)
	}
	t.Logf("helm install %s in %s: %v", r.name, r.ns, time.Since(start).Round(time.Millisecond))
	return r
}

// envList is the chart's env value: the test's variables, and where the
// cluster's kubernetes Service is not reachable from a pod (the local node
// has no kube-proxy), the API server's address for the in-cluster config
// (a hostNetwork pod's: not for pods on the pod network).
func envList(env map[string]string, pc *stacktest.PodCluster, podNetwork bool) []map[string]string {
	all := map[string]string{}
	for k, v := range env {
		all[k] = v
	}
	if host, port, ok := strings.Cut(pc.APIServer, ":"); ok && !podNetwork {
		all["KUBERNETES_SERVICE_HOST"], all["KUBERNETES_SERVICE_PORT"] = host, port
	}
	var out []map[string]string
	for k, v := range all {
		out = append(out, map[string]string{"name": k, "value": v})
	}
	return out
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (r *podRelease) deployment() string { return r.name + "-bundle-adapter" }

func (r *podRelease) kubectl(args ...string) string {
	r.t.Helper()
	out, err := r.pc.KubectlOut(append([]string{"--namespace", r.ns}, args...)...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// uninstall shows the pods' state and logs when the test failed, then
// removes the release and its namespace.
func (r *podRelease) uninstall() {
	if r.t.Failed() {
		out, _ := r.pc.KubectlOut("--namespace", r.ns, "get", "pods,events", "-o", "wide")
		r.t.Logf("namespace %s:\n%s", r.ns, out)
		for _, p := range r.pods() {
			logs, _ := r.pc.KubectlOut("--namespace", r.ns, "logs", p.Name, "--tail", "40")
			r.t.Logf("pod %s log, last lines:\n%s", p.Name, logs)
		}
	}
	_, _ = r.pc.Helm(r.helm, "uninstall", r.name, "--namespace", r.ns, "--wait", "--timeout", "90s")
	_ = r.kc.CoreV1().Namespaces().Delete(context.Background(), r.ns, metav1.DeleteOptions{})
}

// pods are the release's pods, not yet being deleted.
func (r *podRelease) pods() []corev1.Pod {
	list, err := r.kc.CoreV1().Pods(r.ns).List(context.Background(), metav1.ListOptions{
		LabelSelector: "app.kubernetes.io/instance=" + r.name})
	if err != nil {
		r.t.Fatalf("list pods: %v", err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// pod waits for the release's one pod and returns it.
func (r *podRelease) pod() corev1.Pod {
	r.t.Helper()
	var p corev1.Pod
	eventually(r.t, 60*time.Second, "one pod of "+r.name, func() error {
		ps := r.pods()
		if len(ps) != 1 {
			return fmt.Errorf("%d pods", len(ps))
		}
		p = ps[0]
		return nil
	})
	return p
}

// podCondition is the status of a pod condition ("" when absent).
func podCondition(p corev1.Pod, typ corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// adapterStatus is the container status of the chart's container.
func adapterStatus(p corev1.Pod) (corev1.ContainerStatus, bool) {
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == "adapter" {
			return c, true
		}
	}
	return corev1.ContainerStatus{}, false
}

// waitReady waits until the release's pod is Ready and returns it.
func (r *podRelease) waitReady(timeout time.Duration) corev1.Pod {
	r.t.Helper()
	var p corev1.Pod
	eventually(r.t, timeout, "the pod Ready", func() error {
		ps := r.pods()
		if len(ps) != 1 {
			return fmt.Errorf("%d pods", len(ps))
		}
		p = ps[0]
		if s := podCondition(p, corev1.PodReady); s != corev1.ConditionTrue {
			return fmt.Errorf("pod %s phase %s, Ready %q", p.Name, p.Status.Phase, s)
		}
		return nil
	})
	return p
}

// logs is the adapter container's log ("" when the container is gone).
func (r *podRelease) logs(pod string) string {
	out, _ := r.pc.KubectlOut("--namespace", r.ns, "logs", pod, "-c", "adapter")
	return out
}

// podClient is a clientset for the pod cluster.
func podClient(t *testing.T, pc *stacktest.PodCluster) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", pc.Kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig %s: %v", pc.Kubeconfig, err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// watchTermination watches pod, from its resourceVersion rv (read before
// it was deleted), until it is gone, and returns the adapter container's
// last terminated state seen (nil when none was seen). A watch sees every
// update: the kubelet's status with the terminated container can be
// followed by the pod's removal within milliseconds, which polling missed.
func watchTermination(kc *kubernetes.Clientset, ns, pod, rv string, timeout time.Duration) (*corev1.ContainerStateTerminated, error) {
	var last *corev1.ContainerStateTerminated
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		w, err := kc.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + pod, ResourceVersion: rv})
		if err != nil {
			return last, fmt.Errorf("watch pod %s/%s: %w", ns, pod, err)
		}
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue // a watch error (e.g. too old a version): watched again below
			}
			rv = p.ResourceVersion
			if s, ok := adapterStatus(*p); ok && s.State.Terminated != nil {
				last = s.State.Terminated
			}
			if ev.Type == watch.Deleted {
				w.Stop()
				return last, nil
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return last, fmt.Errorf("pod %s/%s still there after %v", ns, pod, timeout)
		}
	}
}

// podServices is the stack as pods on the pod network reach it: RabbitMQ
// and Maestro's gRPC and REST endpoints, each behind a stacktest.Forwarder
// on the cluster's HostAddr (the local node's bridge address), closed when
// the test ends. The test itself keeps using st.
func podServices(t *testing.T, st *stack, pc *stacktest.PodCluster) *stack {
	t.Helper()
	if pc.HostAddr == "" {
		msg := "no address of this host that the cluster's pods reach (E2E_POD_HOST_ADDR)"
		if os.Getenv("REQUIRE_NODE") == "1" && pc.Local {
			t.Fatal(msg + " (REQUIRE_NODE=1)")
		}
		t.Skip(msg)
	}
	forward := func(target string) string {
		t.Helper()
		f, err := stacktest.Forward(pc.HostAddr, target)
		if err != nil {
			t.Fatalf("forward %s to %s: %v", pc.HostAddr, target, err)
		}
		t.Cleanup(f.Close)
		return f.Addr
	}
	rabbit, err := url.Parse(st.rabbitURL)
	if err != nil {
		t.Fatal(err)
	}
	if rabbit.Port() == "" {
		rabbit.Host = net.JoinHostPort(rabbit.Hostname(), "5672")
	}
	rest, err := url.Parse(st.restURL)
	if err != nil {
		t.Fatal(err)
	}
	pod := *st
	rabbit.Host, rest.Host = forward(rabbit.Host), forward(rest.Host)
	pod.rabbitURL, pod.restURL, pod.grpcAddr = rabbit.String(), rest.String(), forward(st.grpcAddr)
	return &pod
}

// waitReadyN waits until the release has n pods, all Ready and not being
// deleted, and returns them.
func (r *podRelease) waitReadyN(n int, timeout time.Duration) []corev1.Pod {
	r.t.Helper()
	var ps []corev1.Pod
	eventually(r.t, timeout, fmt.Sprintf("%d pods Ready", n), func() error {
		ps = r.pods()
		if len(ps) != n {
			return fmt.Errorf("%d pods", len(ps))
		}
		for _, p := range ps {
			if s := podCondition(p, corev1.PodReady); s != corev1.ConditionTrue {
				return fmt.Errorf("pod %s phase %s, Ready %q", p.Name, p.Status.Phase, s)
			}
		}
		return nil
	})
	return ps
}
