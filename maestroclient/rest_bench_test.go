package maestroclient

import (
	"encoding/json"
	"testing"

	"github.com/openshift-online/maestro/pkg/api/openapi"
	"github.com/openshift-online/maestro/pkg/client/cloudevents/grpcsource"
)

// BenchmarkDecodeBundle is the decoding of one REST answer for a bundle
// with status, as Get does it.
func BenchmarkDecodeBundle(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeBundle([]byte(fullBundle)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBundleViaOpenAPI is the same through the generated openapi
// model and grpcsource.ToManifestWork, as Get did it before.
func BenchmarkDecodeBundleViaOpenAPI(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var rb openapi.ResourceBundle
		if err := json.Unmarshal([]byte(fullBundle), &rb); err != nil {
			b.Fatal(err)
		}
		if _, err := grpcsource.ToManifestWork(&rb); err != nil {
			b.Fatal(err)
		}
	}
}
