package maestroclient

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// viewBundles is the view size the RSS floor is stated for.
const viewBundles = 50_000

// viewBudget is what the view may hold at viewBundles. The adapter's RSS
// floor is 200 MB for everything, the view included; the RSS is about
// twice the live heap (GOGC 100: the heap grows to twice what the last
// collection kept), and the rest of the adapter kept about 32 MB in the
// 25,000-cluster load bench (RSS peak 191 MB with a view of 63 MB at
// 50,000 bundles), so the view may keep at most about 68 MB.
const viewBudget = 60 << 20

// TestViewMemoryPerEntry holds 1,000 bundles in the view and checks that
// 50,000 would stay within viewBudget; BenchmarkViewMemory measures the
// full 50,000.
func TestViewMemoryPerEntry(t *testing.T) {
	perEntry := viewMemory(t, 1_000)
	t.Logf("%d bytes per entry: %.1f MB at %d bundles", perEntry, float64(perEntry*viewBundles)/(1<<20), viewBundles)
	if perEntry*viewBundles > viewBudget {
		t.Errorf("%d bytes per entry: %d MB at %d bundles, over the %d MB budget",
			perEntry, perEntry*viewBundles>>20, viewBundles, viewBudget>>20)
	}
}

// BenchmarkViewMemory reports the heap the view holds at 50,000 bundles
// (run with -benchtime=1x): view-MB and bytes/entry.
func BenchmarkViewMemory(b *testing.B) {
	for range b.N {
		perEntry := viewMemory(b, viewBundles)
		b.ReportMetric(float64(perEntry), "bytes/entry")
		b.ReportMetric(float64(perEntry*viewBundles)/(1<<20), "view-MB")
	}
}

// viewMemory fills a view with n bundles, each as the REST reader decodes a
// bundle the real agent reported on (testdata/resource-bundle.json: a
// Namespace and a ConfigMap, feedback rules, conditions and feedback),
// made distinct per cluster, and returns the heap it holds per entry.
func viewMemory(tb testing.TB, n int) int64 {
	body, err := os.ReadFile("testdata/resource-bundle.json")
	if err != nil {
		tb.Fatal(err)
	}
	read, err := decodeBundle(body)
	if err != nil {
		tb.Fatal(err)
	}
	v := view.New(view.Options{Synced: true})
	before := heap()
	for i := range n {
		// Each bundle its own: name, uid, fingerprint and the manifests'
		// names differ per cluster.
		w := read.DeepCopy()
		id := fmt.Sprintf("%08x-9277-5811-bf93-%012x", i, i*7919)
		w.Name, w.UID = id, types.UID(id)
		w.Annotations = map[string]string{"bundle-adapter.io/fingerprint": fmt.Sprintf("%064x", i*104729)}
		for j := range w.Spec.Workload.Manifests {
			raw := &w.Spec.Workload.Manifests[j].Raw
			*raw = bytes.ReplaceAll(*raw, []byte("cluster-"), []byte("cluster-"+id[:8]+"-"))
		}
		// The consumer as the adapter passes it: a string of its own,
		// rendered for each event (DeepCopy shares the fixture's).
		v.Observe(v.Begin(), strings.Clone(w.Namespace), w.Name, w)
	}
	held := heap() - before
	runtime.KeepAlive(v)
	if v.Len() != n {
		tb.Fatalf("view holds %d entries, want %d", v.Len(), n)
	}
	return held / int64(n)
}

func heap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
