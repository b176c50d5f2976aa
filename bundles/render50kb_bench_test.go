package bundles

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// template50KB compiles a bundle template of ConfigMaps with templated names
// and data, grown until its rendered canonical JSON reaches 50,000 bytes.
func template50KB(b *testing.B) (*task.Manifest, map[string]any, int) {
	b.Helper()
	params := testParams()
	for n := 8; ; n += 4 {
		m, err := task.CompileManifestFile("big.yaml", []byte(bigTemplate(n)))
		if err != nil {
			b.Fatal(err)
		}
		work, err := Render(m, params, testNow)
		if err != nil {
			b.Fatal(err)
		}
		c, err := Canonical(work)
		if err != nil {
			b.Fatal(err)
		}
		if len(c) >= 50_000 {
			return m, params, len(c)
		}
	}
}

// bigTemplate is a ManifestWork template of n ConfigMaps of 16 keys, every
// name and value a template.
func bigTemplate(n int) string {
	var s strings.Builder
	s.WriteString(`apiVersion: work.open-cluster-management.io/v1
kind: ManifestWork
metadata:
  name: "{{ .clusterId }}-big"
  labels: {hyperfleet.io/cluster-id: "{{ .clusterId }}"}
  annotations: {hyperfleet.io/generation: "{{ .generation }}"}
spec:
  deleteOption: {propagationPolicy: Foreground}
  workload:
    manifests:
`)
	for i := range n {
		fmt.Fprintf(&s, `      - apiVersion: v1
        kind: ConfigMap
        metadata:
          name: "settings-%d-{{ .clusterId | lower }}"
          namespace: "cluster-{{ .clusterId | lower }}"
          labels: {hyperfleet.io/cluster-id: "{{ .clusterId }}", index: "%d"}
        data:
`, i, i)
		for k := range 16 {
			fmt.Fprintf(&s, "          key%02d: \"value %d.%d of {{ .spec.version }} at generation {{ .generation }}\"\n", k, i, k)
		}
	}
	return s.String()
}

// BenchmarkRenderFingerprint50KB renders a 50 KB bundle from its template
// and fingerprints it: the per-event cost of a large bundle before the
// decision.
func BenchmarkRenderFingerprint50KB(b *testing.B) {
	m, params, size := template50KB(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		work, err := Render(m, params, testNow)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Fingerprint(work); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/bundle")
}
