package memkube

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// Kind is one kind the store serves.
type Kind struct {
	APIVersion, Kind string
	Namespaced       bool
}

// Options configures a Store. The zero value is usable.
type Options struct {
	// Clock stamps creationTimestamp and deletionTimestamp (truncated to
	// whole seconds). Default: time.Now.
	Clock func() time.Time
	// Kinds are served besides the built-in ones (BuiltinKinds).
	Kinds []Kind
	// AnyKind serves every apiVersion/kind, not only the known ones: an
	// unknown kind is namespaced when the request names a namespace (dry-run
	// of configs applying custom resources). Default false: ErrInvalid.
	AnyKind bool
	// HoldNamespaces keeps a deleted Namespace Terminating until
	// RemoveFinalizers, as while the namespace controller empties it.
	// Default false: it is removed at once, with its objects.
	HoldNamespaces bool
}

// BuiltinKinds are the kinds every Store serves.
var BuiltinKinds = []Kind{
	{"v1", "Namespace", false},
	{"v1", "ConfigMap", true},
	{"v1", "Secret", true},
	{"v1", "Service", true},
	{"v1", "ServiceAccount", true},
	{"v1", "Pod", true},
	{"v1", "PersistentVolumeClaim", true},
	{"apps/v1", "Deployment", true},
	{"apps/v1", "StatefulSet", true},
	{"apps/v1", "DaemonSet", true},
	{"batch/v1", "Job", true},
	{"batch/v1", "CronJob", true},
	{"rbac.authorization.k8s.io/v1", "Role", true},
	{"rbac.authorization.k8s.io/v1", "RoleBinding", true},
	{"rbac.authorization.k8s.io/v1", "ClusterRole", false},
	{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", false},
	{"apiextensions.k8s.io/v1", "CustomResourceDefinition", false},
	{"networking.k8s.io/v1", "NetworkPolicy", true},
	{"policy/v1", "PodDisruptionBudget", true},
	{"work.open-cluster-management.io/v1", "ManifestWork", true},
	{"cluster.open-cluster-management.io/v1", "ManagedCluster", false},
}

// Store is an in-memory Kubernetes API server. Create one with New. It
// implements adapter.Kube and is safe for concurrent use.
type Store struct {
	clock          func() time.Time
	kinds          map[kindKey]bool // namespaced
	anyKind        bool
	holdNamespaces bool

	mu      sync.Mutex
	objects map[objKey]*unstructured.Unstructured
	version int64 // last resourceVersion handed out
	uids    int64
	calls   []Call
	faults  []*fault
}

var _ adapter.Kube = (*Store)(nil)

type kindKey struct{ apiVersion, kind string }

// objKey addresses an object by group (not version), kind, namespace, name.
type objKey struct{ group, kind, namespace, name string }

// New returns an empty store.
func New(opts Options) *Store {
	s := &Store{clock: opts.Clock, holdNamespaces: opts.HoldNamespaces, anyKind: opts.AnyKind,
		kinds: map[kindKey]bool{}, objects: map[objKey]*unstructured.Unstructured{}}
	if s.clock == nil {
		s.clock = time.Now
	}
	for _, k := range append(append([]Kind(nil), BuiltinKinds...), opts.Kinds...) {
		s.kinds[kindKey{k.APIVersion, k.Kind}] = k.Namespaced
	}
	return s
}

// resolve checks ref's kind and scope and returns its key: ErrInvalid for a
// kind the store does not serve or a namespaced kind without namespace.
// A cluster-scoped kind's namespace is ignored.
func (s *Store) resolve(ref adapter.KubeRef, needName bool) (objKey, error) {
	namespaced, ok := s.kinds[kindKey{ref.APIVersion, ref.Kind}]
	if !ok && s.anyKind && ref.Kind != "" {
		namespaced, ok = ref.Namespace != "", true
	}
	if !ok {
		return objKey{}, kubeerr.Wrap(adapter.ErrInvalid, "memkube: the server does not serve %s %s", ref.APIVersion, ref.Kind)
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return objKey{}, kubeerr.Wrap(adapter.ErrInvalid, "memkube: apiVersion %q: %v", ref.APIVersion, err)
	}
	k := objKey{group: gv.Group, kind: ref.Kind, namespace: ref.Namespace, name: ref.Name}
	if !namespaced {
		k.namespace = ""
	}
	if needName && ref.Name == "" {
		return objKey{}, kubeerr.Wrap(adapter.ErrInvalid, "memkube: %s %s without a name", ref.APIVersion, ref.Kind)
	}
	if needName && namespaced && ref.Namespace == "" {
		return objKey{}, kubeerr.Wrap(adapter.ErrInvalid, "memkube: %s %s %s is namespaced: the request needs a namespace", ref.APIVersion, ref.Kind, ref.Name)
	}
	return k, nil
}

func refOf(obj *unstructured.Unstructured) adapter.KubeRef {
	return adapter.KubeRef{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

func describe(ref adapter.KubeRef) string {
	if ref.Namespace == "" {
		return fmt.Sprintf("%s %s", ref.Kind, ref.Name)
	}
	return fmt.Sprintf("%s %s/%s", ref.Kind, ref.Namespace, ref.Name)
}

// nextVersion hands out the next resourceVersion. Called with mu held.
func (s *Store) nextVersion() string {
	s.version++
	return fmt.Sprint(s.version)
}

// nextUID hands out a deterministic uid. Called with mu held.
func (s *Store) nextUID() string {
	s.uids++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", s.uids)
}

// Objects returns a copy of every object, sorted by kind, namespace, name.
func (s *Store) Objects() []*unstructured.Unstructured {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*unstructured.Unstructured, 0, len(s.objects))
	for _, o := range s.objects {
		out = append(out, o.DeepCopy())
	}
	sortObjects(out)
	return out
}

func sortObjects(objs []*unstructured.Unstructured) {
	key := func(o *unstructured.Unstructured) string {
		return strings.Join([]string{o.GetKind(), o.GetNamespace(), o.GetName()}, "/")
	}
	for i := 1; i < len(objs); i++ {
		for j := i; j > 0 && key(objs[j]) < key(objs[j-1]); j-- {
			objs[j], objs[j-1] = objs[j-1], objs[j]
		}
	}
}
