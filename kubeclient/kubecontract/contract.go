// Package kubecontract holds the behavioural scenarios every adapter.Kube
// must pass: the in-memory fake (kubeclient/memkube) and the client of a real
// Kubernetes API server (kubeclient) alike. Run them from a test with a
// Harness for the implementation.
//
// The scenarios poll where a real API server is asynchronous (the garbage
// collector finishing a Foreground or Orphan deletion, the namespace
// controller finishing a Namespace), so they hold for both. Each scenario
// uses fresh object names and, when it ends, removes the finalizers it set
// and deletes what it created.
package kubecontract

import (
	"context"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Harness gives the scenarios an implementation under test and the powers
// of another controller on the cluster.
type Harness struct {
	// Kube is the implementation under test.
	Kube adapter.Kube
	// Namespace exists before Run and holds the scenarios' namespaced
	// objects (ConfigMaps). Its other objects are left alone.
	Namespace string
	// RemoveFinalizers removes every finalizer of the object, as the
	// controller that set them does when it finishes. The adapter itself
	// never removes finalizers, which is why this is not part of
	// adapter.Kube. It returns an error wrapping adapter.ErrNotFound when the
	// object is gone.
	RemoveFinalizers func(ctx context.Context, ref adapter.KubeRef) error
	// Timeout bounds each wait for an asynchronous effect (a deletion
	// finishing once nothing holds it). Zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds each wait of a scenario when Harness.Timeout is zero.
// A real garbage collector finishes a Foreground deletion of an object
// without dependents within a second or two; the namespace controller takes
// a few seconds for an empty Namespace.
const DefaultTimeout = 30 * time.Second

// Finalizer is the finalizer the scenarios set to hold a deletion, in place
// of another controller's.
const Finalizer = "bundle-adapter.io/contract-hold"

// Scenario is one behavioural check.
type Scenario struct {
	Name string
	Run  func(t *testing.T, h Harness)
}

// Scenarios lists every scenario Run runs, in order.
var Scenarios = []Scenario{
	{"GetMissing", getMissing},
	{"CreateThenGet", createThenGet},
	{"CreateExisting", createExisting},
	{"CreateWhileDeleting", createWhileDeleting},
	{"CreateRefusesInvalidNamesAndLabels", createInvalid},
	{"ApplyInPlace", applyInPlace},
	{"ApplyMissing", applyMissing},
	{"ApplyWhileDeleting", applyWhileDeleting},
	{"DeleteHeldByFinalizer", deleteHeldByFinalizer},
	{"DeleteMissing", deleteMissing},
	{"DeleteWhileDeletingIsAccepted", deleteWhileDeleting},
	{"DeleteByUIDSparesANewerObject", deleteByUID},
	{"DeletePropagation", deletePropagation},
	{"DeleteUnknownPropagation", deleteUnknownPropagation},
	{"ListByLabels", listByLabels},
	{"ListRefusesInvalidLabels", listInvalidLabels},
	{"ClusterScoped", clusterScoped},
	{"UnknownKind", unknownKind},
}

// Run runs every scenario as a subtest of t.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Kube == nil || h.Namespace == "" || h.RemoveFinalizers == nil {
		t.Fatal("kubecontract: Harness needs Kube, Namespace and RemoveFinalizers")
	}
	for _, sc := range Scenarios {
		t.Run(sc.Name, func(t *testing.T) { sc.Run(t, h) })
	}
}

func (h Harness) timeout() time.Duration {
	if h.Timeout > 0 {
		return h.Timeout
	}
	return DefaultTimeout
}
