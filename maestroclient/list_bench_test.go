package maestroclient

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// listPageBody is a resource bundle list page of n items, each the bundle
// of testdata/resource-bundle.json (what the real agent reported on) made
// distinct per item, as Maestro answers a List page.
func listPageBody(tb testing.TB, n int) []byte {
	item, err := os.ReadFile("testdata/resource-bundle.json")
	if err != nil {
		tb.Fatal(err)
	}
	item = bytes.TrimSpace(item)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":"ResourceBundleList","page":1,"size":%d,"total":%d,"items":[`, n, n)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(bytes.ReplaceAll(item, []byte("cluster-"), []byte(fmt.Sprintf("cluster-%08x-", i))))
	}
	b.WriteString("]}")
	return b.Bytes()
}

// BenchmarkListPageFill is the adapter's own share of a first List, per
// bundle: decoding a page of 1,000 bundles as Maestro answers it, and
// storing them in the view (Refresh). Maestro's share (its query and its
// encoding) is not in it; bench/README.md sets the two side by side.
func BenchmarkListPageFill(b *testing.B) {
	const n = 1000
	body := listPageBody(b, n)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := decodeListPage(body, n)
		if err != nil {
			b.Fatal(err)
		}
		if len(got.Items) != n {
			b.Fatalf("%d items, want %d", len(got.Items), n)
		}
		v := view.New(view.Options{Synced: true})
		keys := make([]adapter.BundleKey, len(got.Items))
		for i, it := range got.Items {
			keys[i] = adapter.BundleKey{Consumer: it.consumer, Name: it.work.Name + fmt.Sprint(i)}
			got.Items[i].work.Name = keys[i].Name
		}
		works := make([]*workv1.ManifestWork, len(got.Items))
		for i, it := range got.Items {
			works[i] = it.work
		}
		v.Refresh(v.BeginList(), keys, works)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/bundle")
}
