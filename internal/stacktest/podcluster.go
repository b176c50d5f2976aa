package stacktest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// PodCluster is a Kubernetes cluster that runs pods, for the end-to-end
// tests that install the chart and watch its pod: by default the node
// hack/node.sh brings up on this host (a kubelet beside hack/kube.sh's
// control plane), or any cluster named by the environment:
//
//	E2E_POD_KUBECONFIG   its kubeconfig (e.g. a kind cluster's)
//	E2E_POD_LOAD_IMAGE   a command the image reference is appended to, which
//	                     makes the image available to its nodes without a
//	                     registry (e.g. "kind load docker-image")
//	E2E_POD_APISERVER    host:port at which a pod reaches the API server when
//	                     the cluster's kubernetes Service does not (the
//	                     local node has no kube-proxy); empty: the Service
//	E2E_POD_HOST_ADDR    an address of this host that pods on the cluster's
//	                     pod network reach (e.g. the gateway of kind's docker
//	                     network); the tests forward it to their loopback
//	                     services (Forwarder). Empty: the tests that run pods
//	                     off hostNetwork skip
//
// The tests' dependencies (RabbitMQ, Maestro, the recording HyperFleet API)
// listen on this host's loopback. Most pods use hostNetwork: on the local
// node they share that loopback; on another cluster they must be reachable
// at the same addresses from the node (not so for kind's nodes, which are
// containers: see docs/testing.md). Pods that cannot share the host's ports
// (two replicas on one node) run on the pod network and reach those
// services through forwarders on HostAddr: on the local node, its bridge
// address (hack/node.sh NODE_IP).
type PodCluster struct {
	Kubeconfig string
	Kubectl    string   // kubectl binary
	LoadImage  []string // command; the image reference is appended
	APIServer  string   // host:port for KUBERNETES_SERVICE_HOST/PORT; empty: the Service
	HostAddr   string   // this host's address as pods on the pod network reach it; empty: none
	Local      bool     // hack/node.sh's node: its containerd is reachable (hack/node.sh ctr)
	root       string   // the repository, for hack/
}

// PodClusterFromEnv returns the cluster the environment names, else the
// local node when hack/node.sh reports it running. The error says why no
// cluster is available (the caller skips or fails with it).
func PodClusterFromEnv(root string) (*PodCluster, error) {
	if kc := os.Getenv("E2E_POD_KUBECONFIG"); kc != "" {
		load := strings.Fields(os.Getenv("E2E_POD_LOAD_IMAGE"))
		if len(load) == 0 {
			return nil, fmt.Errorf("E2E_POD_KUBECONFIG is set but E2E_POD_LOAD_IMAGE is not (e.g. \"kind load docker-image\")")
		}
		kubectl, err := exec.LookPath("kubectl")
		if err != nil {
			return nil, fmt.Errorf("E2E_POD_KUBECONFIG is set but no kubectl in PATH")
		}
		return &PodCluster{Kubeconfig: kc, Kubectl: kubectl, LoadImage: load,
			APIServer: os.Getenv("E2E_POD_APISERVER"), HostAddr: os.Getenv("E2E_POD_HOST_ADDR"), root: root}, nil
	}
	node := filepath.Join(root, "hack", "node.sh")
	if out, err := exec.Command(node, "status").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("the local node is not up (hack/node.sh status: %s); `make e2e` brings it up where it can", bytes.TrimSpace(out))
	}
	env, err := exec.Command(node, "env").Output()
	if err != nil {
		return nil, fmt.Errorf("hack/node.sh env: %v", err)
	}
	vars := map[string]string{}
	for _, l := range strings.Split(string(env), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(l, "export "), "="); ok {
			vars[k] = v
		}
	}
	if vars["KUBECONFIG"] == "" || vars["KUBECTL"] == "" || vars["NODE_APISERVER"] == "" {
		return nil, fmt.Errorf("hack/node.sh env printed no KUBECONFIG, KUBECTL or NODE_APISERVER: %q", env)
	}
	return &PodCluster{Kubeconfig: vars["KUBECONFIG"], Kubectl: vars["KUBECTL"],
		LoadImage: []string{node, "load"}, APIServer: vars["NODE_APISERVER"], HostAddr: vars["NODE_IP"],
		Local: true, root: root}, nil
}

// Load makes image available to the cluster's nodes.
func (c *PodCluster) Load(image string) error {
	args := append(append([]string{}, c.LoadImage[1:]...), image)
	return run(exec.Command(c.LoadImage[0], args...), 5*time.Minute)
}

// Kubectl runs kubectl against the cluster and returns its stdout.
func (c *PodCluster) KubectlOut(args ...string) (string, error) {
	cmd := exec.Command(c.Kubectl, append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := run(cmd, 2*time.Minute)
	return strings.TrimSpace(out.String()), err
}

// Helm runs helm against the cluster and returns its combined output.
func (c *PodCluster) Helm(helm string, args ...string) (string, error) {
	cmd := exec.Command(helm, append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := run(cmd, 3*time.Minute)
	return strings.TrimSpace(out.String()), err
}

// Ctr runs ctr against the local node's containerd (hack/node.sh ctr).
func (c *PodCluster) Ctr(args ...string) (string, error) {
	if !c.Local {
		return "", fmt.Errorf("ctr: not the local node")
	}
	cmd := exec.Command(filepath.Join(c.root, "hack", "node.sh"), append([]string{"ctr"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := run(cmd, time.Minute)
	return strings.TrimSpace(out.String()), err
}

// run runs cmd within timeout; its error carries the command and the last
// lines of its stderr.
func run(cmd *exec.Cmd, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stderr bytes.Buffer
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Stdout, c.Stderr, c.Env, c.Dir = cmd.Stdout, &stderr, cmd.Env, cmd.Dir
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, LastLines(stderr.String(), 20))
	}
	return nil
}
