package adapter

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// BenchmarkDecide is the bundle decision alone, per row of the table, with
// the fingerprint and the rules already known (render and CEL are measured
// by BenchmarkUnchangedEvent, BenchmarkRender and BenchmarkPostPayloadCEL).
func BenchmarkDecide(b *testing.B) {
	const fp = "0f3c9a"
	present := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: "b",
		Annotations: map[string]string{bundles.FingerprintAnnotation: fp}}}
	deleting := present.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{}
	is := func(v bool) func() (bool, error) { return func() (bool, error) { return v, nil } }
	fingerprint := func(s string) func() (string, error) { return func() (string, error) { return s, nil } }
	cases := []struct {
		name string
		obs  *workv1.ManifestWork
		fp   string
		r    rules
		want decision
	}{
		{"unchanged", present, fp, rules{deleteWhen: is(false), recreateWhen: is(true)}, decision{op: OpUnchanged, write: writeNone}},
		{"create", nil, fp, rules{deleteWhen: is(false)}, decision{op: OpCreate, write: writeCreate}},
		{"update", present, "other", rules{}, decision{op: OpUpdate, write: writeUpdate}},
		{"recreate", present, "other", rules{deleteWhen: is(false), recreateWhen: is(true)}, decision{op: OpRecreate, write: writeRecreate}},
		{"recreate pending", deleting, "other", rules{recreateWhen: is(true)}, decision{op: OpRecreate, write: writeNone}},
		{"delete", present, fp, rules{deleteWhen: is(true)}, decision{op: OpDelete, write: writeDelete}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			obs, desired := observation{work: c.obs}, fingerprint(c.fp)
			b.ReportAllocs()
			for b.Loop() {
				d, err := decide(obs, desired, c.r)
				if err != nil || d != c.want {
					b.Fatalf("decide = %+v, %v; want %+v", d, err, c.want)
				}
			}
		})
	}
}
