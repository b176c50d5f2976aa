package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// fingerprintCost is the time to fingerprint a bundle whose canonical JSON is
// about 50 KB, and to render it from its template and fingerprint it.
type fingerprintCost struct {
	bytes                int
	fingerprintMS        float64
	renderFingerprintsMS float64
}

// measureFingerprint50KB builds a bundle template of many ConfigMaps, each
// with templated names and data, grows it until its rendered canonical JSON
// reaches 50,000 bytes, and times Fingerprint (and Render + Fingerprint) with
// testing.Benchmark.
func measureFingerprint50KB() (fingerprintCost, error) {
	params := map[string]any{"clusterId": "C1-abc", "clusterName": "bench", "generation": 7}
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var m *task.Manifest
	var tree map[string]any
	var size int
	for n := 8; ; n += 4 {
		var err error
		if m, err = task.CompileManifestFile("bench-50kb.yaml", []byte(bigBundle(n))); err != nil {
			return fingerprintCost{}, err
		}
		if tree, err = bundles.Render(m, params, now); err != nil {
			return fingerprintCost{}, err
		}
		c, err := bundles.Canonical(tree)
		if err != nil {
			return fingerprintCost{}, err
		}
		if size = len(c); size >= 50_000 {
			break
		}
	}
	fp := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if _, err := bundles.Fingerprint(tree); err != nil {
				b.Fatal(err)
			}
		}
	})
	rf := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			t, err := bundles.Render(m, params, now)
			if err == nil {
				_, err = bundles.Fingerprint(t)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	ms := func(r testing.BenchmarkResult) float64 { return float64(r.NsPerOp()) / 1e6 }
	return fingerprintCost{bytes: size, fingerprintMS: ms(fp), renderFingerprintsMS: ms(rf)}, nil
}

// bigBundle is a ManifestWork template of n ConfigMaps of 16 templated keys.
func bigBundle(n int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: work.open-cluster-management.io/v1
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
		fmt.Fprintf(&b, `      - apiVersion: v1
        kind: ConfigMap
        metadata:
          name: "settings-%d-{{ .clusterId | lower }}"
          namespace: "cluster-{{ .clusterId | lower }}"
          labels: {hyperfleet.io/cluster-id: "{{ .clusterId }}", index: "%d"}
        data:
`, i, i)
		for k := range 16 {
			fmt.Fprintf(&b, "          key%02d: \"value %d.%d of {{ .clusterName }} at generation {{ .generation }}\"\n", k, i, k)
		}
	}
	return b.String()
}
