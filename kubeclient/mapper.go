package kubeclient

import (
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// resetInterval is the least time between two discovery resets: a config
// naming a kind the server does not serve refetches discovery at most this
// often, not at every event.
const resetInterval = 10 * time.Second

// mapper resolves apiVersion and kind to the resource the dynamic client
// addresses, from a discovery answer cached in memory. A kind the cache does
// not know resets the cache once (a CRD installed since) and asks again.
type mapper struct {
	cache discovery.CachedDiscoveryInterface
	rm    *restmapper.DeferredDiscoveryRESTMapper

	mu        sync.Mutex
	lastReset time.Time
	now       func() time.Time
}

func newMapper(disco discovery.DiscoveryInterface) *mapper {
	cache := memory.NewMemCacheClient(disco)
	return &mapper{cache: cache, rm: restmapper.NewDeferredDiscoveryRESTMapper(cache), now: time.Now}
}

// mapping returns the REST mapping of ref's kind. An unknown kind wraps
// adapter.ErrInvalid; a failed discovery request is classified like any
// call (ErrUnavailable for a transport failure or a 5xx).
func (m *mapper) mapping(ref adapter.KubeRef) (*meta.RESTMapping, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, kubeerr.Wrap(adapter.ErrInvalid, "apiVersion %q: %w", ref.APIVersion, err)
	}
	if ref.Kind == "" {
		return nil, kubeerr.Wrap(adapter.ErrInvalid, "kind is empty")
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: ref.Kind}
	mp, err := m.rm.RESTMapping(gk, gv.Version)
	if err != nil && meta.IsNoMatchError(err) && m.mayReset() {
		m.rm.Reset()
		mp, err = m.rm.RESTMapping(gk, gv.Version)
	}
	if err != nil {
		return nil, err
	}
	return mp, nil
}

func (m *mapper) mayReset() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if !m.lastReset.IsZero() && now.Sub(m.lastReset) < resetInterval {
		return false
	}
	m.lastReset = now
	return true
}

// resource returns the dynamic resource for ref: namespaced by ref's
// namespace when the kind is namespaced (all namespaces when allowAll and
// the namespace is empty), cluster-wide otherwise. namespaced reports which.
//
// A name or namespace that is not one path segment (rendered from an
// event, it could otherwise point a request elsewhere) is ErrInvalid before
// any request is made, whatever the verb.
func (c *Client) resource(ref adapter.KubeRef, allowAll bool) (r dynamic.ResourceInterface, namespaced bool, err error) {
	if err := checkSegments(ref); err != nil {
		return nil, false, err
	}
	mp, err := c.mapper.mapping(ref)
	if err != nil {
		return nil, false, err
	}
	nri := c.dyn.Resource(mp.Resource)
	if mp.Scope.Name() != meta.RESTScopeNameNamespace {
		return nri, false, nil
	}
	if ref.Namespace == "" && !allowAll {
		return nil, true, kubeerr.Wrap(adapter.ErrInvalid, "%s is namespaced and no namespace is given", ref.Kind)
	}
	return nri.Namespace(ref.Namespace), true, nil
}

// checkSegments refuses a name or namespace that client-go could not send
// as one path segment ("/", "%", "." or ".."), as ErrInvalid naming it.
func checkSegments(ref adapter.KubeRef) error {
	for _, f := range []struct{ what, v string }{{"name", ref.Name}, {"namespace", ref.Namespace}} {
		if f.v == "" {
			continue
		}
		if msgs := rest.IsValidPathSegmentName(f.v); len(msgs) != 0 {
			return kubeerr.Wrap(adapter.ErrInvalid, "invalid %s %q: %s", f.what, f.v, strings.Join(msgs, ", "))
		}
	}
	return nil
}
