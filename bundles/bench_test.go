package bundles

import (
	"strconv"
	"testing"
)

// BenchmarkRender renders testdata/bundle.yaml (4 manifests, 19 templates,
// one using now): the per-event cost of a typical Tree bundle.
func BenchmarkRender(b *testing.B) {
	m := compileFixture(b, "bundle.yaml")
	params := testParams()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(m, params, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderWhole is the documented slow path, for comparison.
func BenchmarkRenderWhole(b *testing.B) {
	m := compileFixture(b, "range.yaml")
	params := map[string]any{"clusterId": "c9", "namespaces": []any{"ns-a", "ns-b", "ns-c"}, "replicas": 2}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(m, params, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// work50KB is a bundle whose canonical JSON is about 50 KB, shaped like real
// manifests (many small maps and strings rather than one big string).
func work50KB(b *testing.B) map[string]any {
	work := renderFixture(b, "bundle.yaml", testParams())
	workload := work["spec"].(map[string]any)["workload"].(map[string]any)
	var manifests []any
	for i := 0; ; i++ {
		rendered := renderFixture(b, "bundle.yaml", map[string]any{
			"clusterId":  "cluster-" + strconv.Itoa(i),
			"generation": i,
			"spec":       map[string]any{"version": "4.17", "nodes": i},
		})
		manifests = append(manifests, at(b, rendered, "spec", "workload", "manifests").([]any)...)
		workload["manifests"] = manifests
		c, err := Canonical(work)
		if err != nil {
			b.Fatal(err)
		}
		if len(c) >= 50_000 {
			return work
		}
	}
}

func BenchmarkFingerprint50KB(b *testing.B) {
	work := work50KB(b)
	c, _ := Canonical(work)
	b.SetBytes(int64(len(c)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fingerprint(work); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckSize50KB(b *testing.B) {
	work := work50KB(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckSize("b", work); err != nil {
			b.Fatal(err)
		}
	}
}
