package memmaestro

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// t0 is the fake clock's start; the nanoseconds check truncation.
var t0 = time.Date(2026, 3, 1, 10, 0, 0, 500_000_000, time.UTC)

// clock is a settable clock safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newTestStore returns a Store on a fake clock.
func newTestStore(opts Options) (*Store, *clock) {
	c := newClock()
	opts.Clock = c.Now
	return New(opts), c
}

// cm is a ConfigMap manifest named name with data v=val.
func cm(name, val string) workv1.Manifest {
	raw := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"},"data":{"v":%q}}`, name, val)
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(raw)}}
}

// work is a valid work named name with label rev=val and one ConfigMap.
func work(name, val string) *workv1.ManifestWork {
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{"rev": val},
			Annotations: map[string]string{"note": val},
		},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{
			Manifests: []workv1.Manifest{cm(name, val)},
		}},
	}
}

// data returns data.v of the first manifest of w.
func data(t *testing.T, w *workv1.ManifestWork) string {
	t.Helper()
	var obj struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &obj); err != nil {
		t.Fatalf("manifest of %s: %v", w.Name, err)
	}
	return obj.Data["v"]
}

func mustCreate(t *testing.T, s *Store, consumer string, w *workv1.ManifestWork) *workv1.ManifestWork {
	t.Helper()
	got, err := s.Create(context.Background(), consumer, w, adapter.Unread)
	if err != nil {
		t.Fatalf("Create %s/%s: %v", consumer, w.Name, err)
	}
	return got
}

func mustGet(t *testing.T, s *Store, consumer, name string) *workv1.ManifestWork {
	t.Helper()
	got, err := s.Get(context.Background(), consumer, name)
	if err != nil {
		t.Fatalf("Get %s/%s: %v", consumer, name, err)
	}
	return got
}

func mustDelete(t *testing.T, s *Store, consumer, name string) {
	t.Helper()
	if err := s.Delete(context.Background(), consumer, name); err != nil {
		t.Fatalf("Delete %s/%s: %v", consumer, name, err)
	}
}

// snapshot is the Store's state as saved JSON, to check that nothing changed.
func snapshot(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	if err := s.SaveState(&b); err != nil {
		t.Fatalf("SaveState: %v", err)
	}
	return b.String()
}
