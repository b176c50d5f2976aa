package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// reconcileUntilOrHeal is reconcileUntil for a wait that a deletion by
// the real agent stands in the way of (a recreation's old bundle, or a
// deleted cluster's bundles). When ok has not held within timeout (at
// least lostAfter and a little more, so that a lost deletion can be told
// from a slow one) and the shared agent provably lost the deletion of one
// of c's bundles (bundleDeletionLost), it restarts that agent once, the
// operator's remedy of the row "Agent loses a deletion (real agent)" in
// docs/reliability.md (a restarted agent's resync confirms it), and waits
// as long again. Any other cause fails the test; what the adapter did
// (one delete, no create before the 404) is checked by the callers either
// way.
func (c *cluster) reconcileUntilOrHeal(kc *kubernetes.Clientset, timeout time.Duration, what string, ok func(map[string]any) error) {
	c.t.Helper()
	timeout = max(timeout, lostAfter+15*time.Second)
	wait := func() error {
		return until(timeout, func() error { return ok(c.reconcile()) })
	}
	err := wait()
	if err == nil {
		return
	}
	lost := c.lostDeletions(kc)
	if len(lost) == 0 {
		c.t.Fatalf("timed out after %v waiting for %s: %v (no bundle deletion the agent provably lost)", timeout, what, err)
	}
	c.t.Logf("the agent lost the deletion of %s (%v); restarting it, the operator's remedy", strings.Join(lost, ", "), err)
	restartAgents(c.t, []string{c.st.consumer})
	if err := wait(); err != nil {
		c.t.Fatalf("timed out after %v more, the agent restarted, waiting for %s: %v", timeout, what, err)
	}
}

// lostDeletions names c's bundles (of source e2e-<topic>, as adapterConfig
// sets it) whose deletion the agent provably lost.
func (c *cluster) lostDeletions(kc *kubernetes.Clientset) []string {
	c.t.Helper()
	mc, err := maestroclient.New(c.t.Context(), maestroclient.Options{GRPCAddress: c.st.grpcAddr, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: c.st.restURL, HTTP: maestroclient.TLSOptions{Insecure: true}, SourceID: "e2e-" + c.topic})
	if err != nil {
		c.t.Fatal(err)
	}
	defer mc.Close()
	ctx := c.t.Context()
	objects := map[string]func() (metav1.Object, error){
		c.id + "-setup": func() (metav1.Object, error) {
			return kc.CoreV1().Namespaces().Get(ctx, c.namespace(), metav1.GetOptions{})
		},
		c.id + "-validation": func() (metav1.Object, error) {
			return kc.BatchV1().Jobs("default").Get(ctx, c.jobName(), metav1.GetOptions{})
		},
	}
	var lost []string
	for name, get := range objects {
		if why := bundleDeletionLost(ctx, mc, c.st.consumer, name, get); why != nil {
			c.t.Logf("bundle %s: not a lost deletion: %v", name, why)
			continue
		}
		lost = append(lost, name)
	}
	return lost
}

// bundleDeletionLost returns nil when the agent has provably lost the
// deletion of bundle name: Maestro has held it deleting for over lostAfter
// while its object (get) is gone from the API server, or was applied again
// after the deletion began. Neither can be the adapter's doing: it deleted
// the bundle and Maestro keeps it until the agent reports it gone.
// Otherwise it says why the deletion is not (yet) a provable loss.
func bundleDeletionLost(ctx context.Context, mc *maestroclient.Client, consumer, name string, get func() (metav1.Object, error)) error {
	work, err := mc.Get(ctx, consumer, name)
	switch {
	case errors.Is(err, adapter.ErrNotFound):
		return errors.New("gone from Maestro: deleted")
	case err != nil:
		return err
	case work.DeletionTimestamp == nil:
		return errors.New("not being deleted")
	}
	if age := time.Since(work.DeletionTimestamp.Time); age < lostAfter {
		return fmt.Errorf("deletion began %v ago: not overdue yet", age.Round(time.Second))
	}
	obj, err := get()
	switch {
	case apierrors.IsNotFound(err):
		return nil // deleted by the agent, never reported
	case err != nil:
		return err
	case obj.GetCreationTimestamp().After(work.DeletionTimestamp.Time):
		return nil // applied again by the agent after the deletion began
	}
	return fmt.Errorf("object %s still there (deleting: %v), created before the deletion began", obj.GetName(), obj.GetDeletionTimestamp() != nil)
}
