package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// Where the image test mounts what the chart mounts, and the Maestro
// client certificate (the chart's extraVolumeMounts).
const (
	imageConfigDir = "/etc/adapter"
	imageTLSDir    = "/etc/maestro-tls"
	chartNonRoot   = 65532
)

var (
	imageOnce sync.Once
	imageRef  string
	imageErr  error
)

// requireImage returns the image hack/image.sh builds (built once per run;
// an unchanged tree rebuilds in seconds). Where podman cannot run a
// container it skips, saying why, or fails with REQUIRE_IMAGE=1.
func requireImage(t *testing.T) string {
	t.Helper()
	if out, err := exec.Command("../hack/image.sh", "check").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("image: podman cannot run a container here: %s", bytes.TrimSpace(out))
		if os.Getenv("REQUIRE_IMAGE") == "1" {
			t.Fatal(msg + " (REQUIRE_IMAGE=1)")
		}
		t.Skip(msg)
	}
	imageOnce.Do(func() {
		start := time.Now()
		cmd := exec.Command("../hack/image.sh", "build")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			imageErr = fmt.Errorf("hack/image.sh build: %v\n%s", err, stacktest.LastLines(stderr.String(), 40))
			return
		}
		imageRef = strings.TrimSpace(string(out))
		t.Logf("hack/image.sh build: %s in %v", imageRef, time.Since(start).Round(time.Second))
	})
	if imageErr != nil {
		t.Fatal(imageErr)
	}
	return imageRef
}

// podman runs podman with this machine's flags (hack/image.sh podman) and
// returns its trimmed stdout.
func podman(args ...string) (string, error) {
	cmd := exec.Command("../hack/image.sh", append([]string{"podman"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("podman %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}

func mustPodman(t *testing.T, args ...string) string {
	t.Helper()
	out, err := podman(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// container is the adapter running in the image, on the host network.
type container struct {
	t      *testing.T
	name   string
	listen string // its health server (--listen)
}

func (c *container) url(path string) string { return "http://" + c.listen + path }

func (c *container) logs() string {
	out, _ := exec.Command("../hack/image.sh", "podman", "logs", c.name).CombinedOutput()
	return string(out)
}

func (c *container) inspect(format string) string {
	c.t.Helper()
	return mustPodman(c.t, "inspect", "--format", format, c.name)
}

func (c *container) metric(name string, labels ...string) float64 {
	c.t.Helper()
	m, err := stacktest.Scrape(c.url("/metrics"))
	if err != nil {
		c.t.Fatalf("scrape the container's metrics: %v", err)
	}
	return m.Sum(name, labels...)
}

// TestImage runs the image `make image` builds as the chart runs its pod,
// against the real stack: the chart's command and arguments, its security
// settings (securityFlags: read-only root filesystem, all capabilities
// dropped, no privilege escalation, user 65532:65532), its configuration
// mounted read-only where the chart mounts it, a writable /tmp as its
// emptyDir, the HyperFleet API token and the Maestro client certificate
// from read-only files readable only through the pod's group (fsGroup), as
// Kubernetes projects secrets. Maestro is reached only through a mutual-TLS
// front (tlsFront) and the recording API refuses requests without the
// token. The container goes through the recreation story (create,
// unchanged, recreate after a change, deletion), answers /healthz and
// /readyz, and on `podman stop` (SIGTERM) finishes its in-flight event and
// exits 0 within the broker's shutdown_timeout.
func TestImage(t *testing.T) {
	st := requireStack(t)
	pod := renderChartPod(t)
	img := requireImage(t)
	security, err := securityFlags(pod.PodSecurity, pod.Security)
	if err != nil {
		t.Fatal(err)
	}
	checkImageConfig(t, img, pod)

	token := unique("token-")
	rec, err := stacktest.StartAPI(stacktest.APIOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	api := &hyperfleetAPI{rec}
	front := startTLSFront(t, st)
	topic := unique("e2e-image-")
	c := runImage(t, st, img, pod, security, api, front, topic, token)

	for _, p := range []string{"/healthz", "/readyz"} {
		if err := getOK(c.url(p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}

	t.Run("recreation story", func(t *testing.T) { imageStory(t, st, api, c, topic) })
	if n := api.Unauthorized(); n != 0 {
		t.Errorf("%d API requests without the token: the token file did not reach the API", n)
	}
	for name, n := range front.verified {
		if n.Load() == 0 {
			t.Errorf("no %s connection through the TLS front with a verified client certificate", name)
		}
	}
	t.Run("SIGTERM drains within shutdown_timeout", func(t *testing.T) { imageDrain(t, st, api, c, topic) })
}

// checkImageConfig: the image runs what the chart's command names, as the
// chart's user, with no shell to exec into.
func checkImageConfig(t *testing.T, img string, pod chartPod) {
	t.Helper()
	var cfg struct {
		User       string
		Entrypoint []string
		Labels     map[string]string
	}
	if err := json.Unmarshal([]byte(mustPodman(t, "image", "inspect", "--format", "{{json .Config}}", img)), &cfg); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%v:%v", pod.PodSecurity["runAsUser"], pod.PodSecurity["runAsGroup"]); cfg.User != want {
		t.Errorf("image user %q, the chart's pod runs as %s", cfg.User, want)
	}
	if !reflect.DeepEqual(cfg.Entrypoint, pod.Command) {
		t.Errorf("image entrypoint %q, the chart's command %q", cfg.Entrypoint, pod.Command)
	}
	for _, l := range []string{"org.opencontainers.image.version", "org.opencontainers.image.revision", "org.opencontainers.image.source"} {
		if cfg.Labels[l] == "" {
			t.Errorf("image label %s missing: %v", l, cfg.Labels)
		}
	}
	if out, err := podman("run", "--rm", "--network", "none", "--entrypoint", "/bin/sh", img, "-c", "true"); err == nil {
		t.Errorf("the image runs /bin/sh: %s", out)
	}
}

// runImage writes the configuration, mounts it as the chart does and
// starts the container; it waits for /readyz and removes the container
// when the test ends (its log shown when the test failed).
func runImage(t *testing.T, st *stack, img string, pod chartPod, security []string, api *hyperfleetAPI,
	front *tlsFront, topic, token string) *container {
	t.Helper()
	cfgDir := newAdapterDir(t, st, api, topic, rabbitBroker(st, topic))
	auth := fmt.Sprintf("    auth:\n      type: tls\n      tls_config: {ca_file: %q, cert_file: %q, key_file: %q}\n",
		imageTLSDir+"/ca.crt", imageTLSDir+"/tls.crt", imageTLSDir+"/tls.key")
	writeFile(t, filepath.Join(cfgDir, "adapter-config.yaml"),
		adapterConfig(api, topic, front.grpcAddr, front.restURL, "e2e-"+topic, auth))
	// ConfigMap volumes: world-readable files in a folder root owns.
	configMapMode(t, cfgDir)
	tokenDir := secretDir(t, map[string][]byte{"token": []byte(token)})
	tlsDir := secretDir(t, map[string][]byte{"ca.crt": front.caPEM, "tls.crt": front.certPEM, "tls.key": front.keyPEM})

	ports, err := stacktest.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	c := &container{t: t, name: unique("bundle-adapter-e2e-"), listen: "127.0.0.1:" + ports[0]}
	args := []string{"run", "--detach", "--name", c.name, "--pull=never", "--network", "host"}
	args = append(args, security...)
	mounts, err := chartMounts(pod, map[string]string{
		"adapter-config":       cfgDir,
		"broker-config":        filepath.Join(cfgDir, "broker.yaml"),
		"hyperfleet-api-token": tokenDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, mounts...)
	args = append(args, "--volume", tlsDir+":"+imageTLSDir+":ro")
	tokenPath := pod.Env["HYPERFLEET_API_AUTH_TOKEN_PATH"]
	if tokenPath == "" {
		t.Fatal("the chart with auth enabled sets no HYPERFLEET_API_AUTH_TOKEN_PATH")
	}
	for _, e := range []string{"HYPERFLEET_API_AUTH_TOKEN_PATH=" + tokenPath, "MAESTRO_CONSUMER=" + st.consumer,
		"VALIDATOR_IMAGE=busybox:1.36"} {
		args = append(args, "--env", e)
	}
	args = append(args, img)
	args = append(args, serveArgs(pod.Args, c.listen, "127.0.0.1:"+ports[1])...)
	start := time.Now()
	mustPodman(t, args...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("container %s log, last lines:\n%s", c.name, stacktest.LastLines(c.logs(), 60))
		}
		_, _ = podman("rm", "--force", "--time", "0", c.name)
	})
	eventually(t, 90*time.Second, "the container's /readyz", func() error {
		if running := c.inspect("{{.State.Running}}"); running != "true" {
			t.Fatalf("the container exited (code %s):\n%s", c.inspect("{{.State.ExitCode}}"), stacktest.LastLines(c.logs(), 40))
		}
		return getOK(c.url("/readyz"))
	})
	t.Logf("container %s ready in %v", c.name, time.Since(start).Round(time.Millisecond))
	checkRunning(t, c, pod)
	return c
}

// checkRunning reads back from podman what the running container got: a
// read-only root, the chart's user, no capabilities at all, no privilege
// escalation, and each chart mount read-only when the chart says so.
func checkRunning(t *testing.T, c *container, pod chartPod) {
	t.Helper()
	var all []struct {
		Config     struct{ User string }
		HostConfig struct {
			ReadonlyRootfs bool
			SecurityOpt    []string
		}
		EffectiveCaps, BoundingCaps []string
		Mounts                      []struct {
			Destination string
			RW          bool
		}
	}
	if err := json.Unmarshal([]byte(mustPodman(t, "inspect", c.name)), &all); err != nil || len(all) != 1 {
		t.Fatalf("podman inspect %s: %d containers, %v", c.name, len(all), err)
	}
	got := all[0]
	if !got.HostConfig.ReadonlyRootfs {
		t.Error("the container's root filesystem is writable")
	}
	if want := fmt.Sprintf("%v:%v", pod.PodSecurity["runAsUser"], pod.PodSecurity["runAsGroup"]); got.Config.User != want {
		t.Errorf("the container runs as %q, want %s", got.Config.User, want)
	}
	if len(got.EffectiveCaps)+len(got.BoundingCaps) != 0 {
		t.Errorf("the container has capabilities: effective %v, bounding %v", got.EffectiveCaps, got.BoundingCaps)
	}
	if !slices.Contains(got.HostConfig.SecurityOpt, "no-new-privileges") {
		t.Errorf("security options %v lack no-new-privileges", got.HostConfig.SecurityOpt)
	}
	rw := map[string]bool{}
	for _, m := range got.Mounts {
		rw[m.Destination] = m.RW
	}
	for _, m := range pod.Mounts {
		if w, ok := rw[m.MountPath]; m.Name != "tmp" && (!ok || w == m.ReadOnly) {
			t.Errorf("chart mount %s at %s: mounted %v, writable %v; the chart says readOnly %v", m.Name, m.MountPath, ok, w, m.ReadOnly)
		}
	}
}

// chartMounts are podman flags for the chart container's volume mounts:
// each named volume from the folder or file given for it, read-only as the
// chart says, and an emptyDir (tmp) as a tmpfs. A mount the test does not
// know fails, so a new chart volume needs a decision here.
func chartMounts(pod chartPod, sources map[string]string) ([]string, error) {
	var flags []string
	for _, m := range pod.Mounts {
		if m.Name == "tmp" {
			flags = append(flags, "--tmpfs", m.MountPath+":rw,nosuid,nodev,mode=1777,size=64m")
			continue
		}
		src, ok := sources[m.Name]
		if !ok {
			return nil, fmt.Errorf("the chart mounts volume %q at %s: the image test does not know it", m.Name, m.MountPath)
		}
		if m.SubPath != "" && filepath.Base(src) != m.SubPath {
			return nil, fmt.Errorf("volume %q: subPath %s, test source %s", m.Name, m.SubPath, src)
		}
		opt := "rw"
		if m.ReadOnly {
			opt = "ro"
		}
		flags = append(flags, "--volume", src+":"+m.MountPath+":"+opt)
	}
	return flags, nil
}

// serveArgs are the chart's container arguments with --listen and
// --metrics-listen on loopback ports of the test (the container shares the
// host's network with everything else on this machine).
func serveArgs(chartArgs []string, listen, metrics string) []string {
	var out []string
	for _, a := range chartArgs {
		if strings.HasPrefix(a, "--listen=") || strings.HasPrefix(a, "--metrics-listen=") {
			continue
		}
		out = append(out, a)
	}
	return append(out, "--listen="+listen, "--metrics-listen="+metrics)
}

// configMapMode makes a config folder look like a ConfigMap volume to the
// container's user: folders 0755, files 0644.
func configMapMode(t *testing.T, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// secretDir writes files as Kubernetes projects a secret for a pod with
// fsGroup: owned by root and the pod's group, readable by the group only.
func secretDir(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, 0, chartNonRoot); err != nil {
			t.Fatalf("chown %s (the test runs as root where podman runs): %v", p, err)
		}
	}
	if err := os.Chown(dir, 0, chartNonRoot); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	return dir
}

// getOK GETs url and wants 200.
func getOK(url string) error {
	resp, err := (&http.Client{Timeout: 3 * time.Second}).Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s answered %d", url, resp.StatusCode)
	}
	return nil
}

// imageStory drives one cluster through the recreation story as the other
// end-to-end tests do (scenarios_test.go), with the adapter in the image.
func imageStory(t *testing.T, st *stack, api *hyperfleetAPI, c *container, topic string) {
	kc := kubeClient(t, st)
	cl := newCluster(t, st, api, topic)
	cl.reconcileUntil(90*time.Second, "created: Applied and Available True",
		wantConditions("Applied=True/BundlesApplied", "Available=True/BundlesAvailable", "Finalized=False/NotDeleting"))
	if n := c.metric("bundle_adapter_bundle_operations_total", `operation="create"`, `state="done"`); n < 1 {
		t.Errorf("%v bundles created", n)
	}
	oldUID, gen, _, err := jobState(kc, cl.jobName())
	if err != nil || gen != "1" {
		t.Fatalf("the Job in the API server: generation %q, %v", gen, err)
	}

	writes := maestroWrites(t, c)
	unchanged := c.metric("bundle_adapter_bundle_operations_total", `operation="unchanged"`)
	for i := 0; i < 3; i++ {
		if err := wantConditions("Applied=True/BundlesApplied")(cl.reconcile()); err != nil {
			t.Errorf("unchanged event %d: %v", i, err)
		}
	}
	if d := maestroWrites(t, c) - writes; d != 0 {
		t.Errorf("3 unchanged events made %v Maestro writes, want 0", d)
	}
	if d := c.metric("bundle_adapter_bundle_operations_total", `operation="unchanged"`) - unchanged; d < 3 {
		t.Errorf("%v unchanged outcomes for 3 unchanged events", d)
	}

	// Generation 2 changes the Job's pod template, which is immutable: the
	// bundle is recreated (delete, 404, create).
	cl.gen = 2
	api.setCluster(cl.id, cl.gen, nil)
	cl.reconcileUntilOrHeal(kc, 120*time.Second, "recreated: Applied True", wantConditions("Applied=True/BundlesApplied"))
	eventually(t, 60*time.Second, "the new Job", func() error {
		uid, gen, _, err := jobState(kc, cl.jobName())
		switch {
		case err != nil:
			return err
		case uid == oldUID:
			return fmt.Errorf("still the old Job (uid %s)", uid)
		case gen != "2":
			return fmt.Errorf("new Job has generation %q, want 2", gen)
		}
		return nil
	})
	// The agent confirms a deletion within milliseconds, seldom within the
	// event that asked for it: the recreate is mostly pending first and
	// the create comes with a later event.
	if n := c.metric("bundle_adapter_bundle_operations_total", `operation="recreate"`); n < 1 {
		t.Errorf("%v recreate outcomes: the change was not delivered by recreation", n)
	}

	cl.gen = 3
	api.setCluster(cl.id, cl.gen, map[string]any{"deleted_time": time.Now().UTC().Format(time.RFC3339)})
	cl.reconcileUntilOrHeal(kc, 120*time.Second, "deleted: Finalized True", wantConditions("Finalized=True/CleanupConfirmed"))
	eventually(t, 60*time.Second, "the Job gone from the API server", func() error {
		if n, err := jobCount(kc, cl.id); err != nil || n != 0 {
			return fmt.Errorf("%d jobs (%v)", n, err)
		}
		return nil
	})
}

func maestroWrites(t *testing.T, c *container) float64 {
	t.Helper()
	m, err := stacktest.Scrape(c.url("/metrics"))
	if err != nil {
		t.Fatalf("scrape the container's metrics: %v", err)
	}
	return m.MaestroWrites()
}

// imageDrain holds an event in flight (its status PUT waits), stops the
// container with podman (SIGTERM, SIGKILL only well after the adapter's
// shutdown_timeout), lets the event finish once the adapter is stopping,
// and wants exit code 0 within shutdown_timeout, the event's status
// recorded and the adapter's own "stopped".
func imageDrain(t *testing.T, st *stack, api *hyperfleetAPI, c *container, topic string) {
	timeout := shutdownTimeout(t, rabbitBroker(st, topic))
	cl := newCluster(t, st, api, topic)
	held, release := api.HoldPuts()
	defer release()
	before := api.StatusCount(cl.id)
	publish(t, st, topic, cl.id, cl.gen)
	select {
	case <-held:
	case <-time.After(90 * time.Second):
		t.Fatal("no status PUT came to hold")
	}
	grace := timeout + 20*time.Second
	start := time.Now()
	stopped := make(chan error, 1)
	go func() {
		_, err := podman("stop", "--time", fmt.Sprint(int(grace.Seconds())), c.name)
		stopped <- err
	}()
	eventually(t, 10*time.Second, "the adapter stopping", func() error {
		if !strings.Contains(c.logs(), `"msg":"stopping: finishing in-flight events"`) {
			return fmt.Errorf("no stopping line in the log yet")
		}
		return nil
	})
	time.Sleep(time.Second) // the event stays in flight across the SIGTERM
	release()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(grace + 10*time.Second):
		t.Fatalf("podman stop did not return within %v", grace+10*time.Second)
	}
	took := time.Since(start)
	code := c.inspect("{{.State.ExitCode}}")
	if code != "0" {
		t.Errorf("exit code %s after SIGTERM, want 0 (137: killed)", code)
	}
	if took >= timeout {
		t.Errorf("the stop took %v, shutdown_timeout is %v", took, timeout)
	}
	log := c.logs()
	if !strings.Contains(log, `"msg":"stopped"`) || strings.Contains(log, "did not finish in time") {
		t.Errorf("the adapter did not drain cleanly; log tail:\n%s", stacktest.LastLines(log, 10))
	}
	if n := api.StatusCount(cl.id); n != before+1 {
		t.Errorf("%d status PUTs for the in-flight event, want 1", n-before)
	}
	t.Logf("podman stop: exit code %s after %v (shutdown_timeout %v)", code, took.Round(time.Millisecond), timeout)
}

// shutdownTimeout reads subscriber.shutdown_timeout from a broker config.
func shutdownTimeout(t *testing.T, brokerYAML string) time.Duration {
	t.Helper()
	var b struct {
		Subscriber struct {
			ShutdownTimeout string `yaml:"shutdown_timeout"`
		} `yaml:"subscriber"`
	}
	if err := yaml.Unmarshal([]byte(brokerYAML), &b); err != nil {
		t.Fatal(err)
	}
	d, err := time.ParseDuration(b.Subscriber.ShutdownTimeout)
	if err != nil || d <= 0 {
		t.Fatalf("broker config: shutdown_timeout %q: %v", b.Subscriber.ShutdownTimeout, err)
	}
	return d
}
