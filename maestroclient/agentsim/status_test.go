package agentsim

import (
	"testing"

	workv1 "open-cluster-management.io/api/work/v1"
)

func TestResourceMeta(t *testing.T) {
	tests := []struct {
		raw  string
		want workv1.ManifestResourceMeta
	}{
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"}}`,
			workv1.ManifestResourceMeta{Ordinal: 1, Version: "v1", Kind: "ConfigMap", Name: "a", Namespace: "ns"}},
		{`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}`,
			workv1.ManifestResourceMeta{Ordinal: 1, Group: "apps", Version: "v1", Kind: "Deployment", Name: "d"}},
	}
	for _, tt := range tests {
		if got := resourceMeta(1, []byte(tt.raw)); got != tt.want {
			t.Errorf("resourceMeta(%s) = %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}
