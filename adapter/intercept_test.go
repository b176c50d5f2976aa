package adapter_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// Chain runs its interceptors in order, the first outermost: each sees
// the call and the context the one before it returned, and the dones run
// innermost first, each with the call's own error.
func TestChain(t *testing.T) {
	var log []string
	type key struct{}
	mark := func(name string) adapter.Interceptor {
		return func(ctx context.Context, c adapter.Call) (context.Context, func(error)) {
			log = append(log, name+" "+c.Client+"."+c.Verb+" after "+func() string { s, _ := ctx.Value(key{}).(string); return s }())
			return context.WithValue(ctx, key{}, name), func(err error) {
				log = append(log, name+" done: "+func() string {
					if errors.Is(err, adapter.ErrNotFound) {
						return "not found"
					}
					return "?"
				}())
			}
		}
	}
	m := adapter.InterceptMaestro(memmaestro.New(memmaestro.Options{Consumers: []string{"c1"}}), adapter.Chain(mark("a"), nil, mark("b")))
	_, _ = m.Get(context.Background(), "c1", "w")
	k := adapter.InterceptKube(memkube.New(memkube.Options{}), adapter.Chain(mark("a")))
	_, _ = k.Get(context.Background(), adapter.KubeRef{APIVersion: "v1", Kind: "Namespace", Name: "n"})
	want := "a maestro.Get after |b maestro.Get after a|b done: not found|a done: not found|a kubernetes.Get after |a done: not found"
	if got := strings.Join(log, "|"); got != want {
		t.Errorf("\n got  %s\n want %s", got, want)
	}
	if adapter.Chain(nil, nil) != nil {
		t.Error("a chain of nothing is nil")
	}
}

type nopMaestro struct{ adapter.Maestro }

func (nopMaestro) GetBundles(context.Context, []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	return nil, nil
}

// A call through an interceptor that wants nothing after it (the event's
// request count) allocates nothing: wrapping both clients costs the
// unchanged event no allocation.
func TestInterceptorWithoutDoneAllocatesNothing(t *testing.T) {
	count := func(ctx context.Context, _ adapter.Call) (context.Context, func(error)) { return ctx, nil }
	m := adapter.InterceptMaestro(nopMaestro{}, count)
	keys := []adapter.BundleKey{{Consumer: "c1", Name: "a"}, {Consumer: "c1", Name: "b"}}
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { _, _ = m.GetBundles(ctx, keys) }); n != 0 {
		t.Errorf("%v allocations per GetBundles through the interceptor, want 0", n)
	}
}
