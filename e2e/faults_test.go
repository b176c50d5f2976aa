package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Scenario 3: a template change with the same generation updates the bundle
// in place, and the objects in the API server follow.
func TestTemplateChangeSameGenerationUpdatesInPlace(t *testing.T) {
	e := startEnv(t)
	kc := kubeClient(t, e.st)
	c := newCluster(t, e.st, e.api, e.topic)
	c.reconcileUntil(90*time.Second, "Applied True", wantConditions("Applied=True/BundlesApplied"))
	e.proc.stop()

	bundle := filepath.Join(e.dir, "bundles", "cluster-setup.yaml")
	b, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), `cluster_name: "{{ .clusterName }}"`,
		`cluster_name: "{{ .clusterName }}"`+"\n          template_revision: \"2\"", 1)
	if changed == string(b) {
		t.Fatal("the example bundle no longer has the line this test edits")
	}
	writeFile(t, bundle, changed)
	e.proc = startAdapter(t, e.st, e.dir, e.topic)

	c.reconcileUntil(60*time.Second, "Applied True after the template change", wantConditions("Applied=True/BundlesApplied"))
	if got := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="update"`); got != 1 {
		t.Errorf("%v updates, want exactly 1 (the changed bundle, in place)", got)
	}
	if got := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="delete"`); got != 0 {
		t.Errorf("%v deletes: a template change without a recreate rule must not delete", got)
	}
	eventually(t, 30*time.Second, "the ConfigMap updated in the API server", func() error {
		data, err := configMapData(kc, c.namespace(), "cluster-info")
		if err != nil || data["template_revision"] != "2" {
			return fmt.Errorf("data %v (%v)", data, err)
		}
		return nil
	})
}

// Scenario 6: Maestro restarts in the middle of a recreation; the adapter
// rides it out (events redelivered) and converges.
func TestMaestroRestartDuringRecreation(t *testing.T) {
	e := startEnv(t)
	kc := kubeClient(t, e.st)
	c := newCluster(t, e.st, e.api, e.topic)
	c.reconcileUntil(90*time.Second, "Available True", wantConditions("Available=True/BundlesAvailable"))
	oldUID, _, _, err := jobState(kc, c.jobName())
	if err != nil {
		t.Fatal(err)
	}
	setJobFinalizers(t, kc, c.jobName(), []string{holdFinalizer})
	t.Cleanup(func() { clearFinalizers(kc, c.jobName()) })
	c.gen = 2
	e.api.setCluster(c.id, c.gen, nil)
	c.reconcileUntil(60*time.Second, "RecreationPending", wantConditions("Applied=False/RecreationPending"))

	maestroScript(t, "stop")
	publish(t, e.st, e.topic, c.id, c.gen) // arrives while Maestro is down: redelivered
	setJobFinalizers(t, kc, c.jobName(), nil)
	time.Sleep(2 * time.Second)
	maestroScript(t, "start")

	c.reconcileUntilOrHeal(kc, 240*time.Second, "the recreation finished after the restart", wantConditions("Applied=True/BundlesApplied"))
	eventually(t, 60*time.Second, "the new Job", func() error {
		uid, gen, _, err := jobState(kc, c.jobName())
		if err != nil || uid == oldUID || gen != "2" {
			return fmt.Errorf("uid %s (old %s) generation %q err %v", uid, oldUID, gen, err)
		}
		return nil
	})
	if n, err := jobCount(kc, c.id); err != nil || n != 1 {
		t.Errorf("%d Jobs for the cluster (%v), want exactly 1", n, err)
	}
}

func maestroScript(t *testing.T, verb string) {
	t.Helper()
	cmd := exec.Command("../hack/maestro.sh", verb)
	cmd.Env = append(os.Environ(), "MAESTRO_FRESH=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/maestro.sh %s: %v\n%s", verb, err, out)
	}
}

// Scenario 7: the adapter is killed in the middle of an event (its status
// PUT in flight); the message was never acked, so it is redelivered to the
// next adapter, which converges without duplicating anything.
func TestAdapterKilledMidEventIsRedelivered(t *testing.T) {
	e := startEnv(t)
	kc := kubeClient(t, e.st)
	c := newCluster(t, e.st, e.api, e.topic)

	held, release := e.api.HoldPuts()
	publish(t, e.st, e.topic, c.id, c.gen)
	select {
	case <-held:
	case <-time.After(60 * time.Second):
		t.Fatal("the first event never reached its status PUT")
	}
	e.proc.kill()
	release()
	if n := e.api.StatusCount(c.id); n != 0 {
		t.Fatalf("%d statuses recorded from the killed adapter", n)
	}

	e.proc = startAdapter(t, e.st, e.dir, e.topic)
	eventually(t, 60*time.Second, "the redelivered event's status", func() error {
		if e.api.StatusCount(c.id) == 0 {
			return fmt.Errorf("no status yet")
		}
		return nil
	})
	if got := e.proc.metric("bundle_adapter_maestro_requests_total", `verb="create"`); got != 0 {
		t.Errorf("the redelivered event created %v bundles: the killed adapter had created them already", got)
	}
	c.reconcileUntil(60*time.Second, "Available True", wantConditions("Applied=True/BundlesApplied", "Available=True/BundlesAvailable"))
	if n, err := jobCount(kc, c.id); err != nil || n != 1 {
		t.Errorf("%d Jobs for the cluster (%v), want exactly 1", n, err)
	}
}
