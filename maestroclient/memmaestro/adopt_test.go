package memmaestro

import (
	"context"
	"strings"
	"testing"
)

// Adopt loads a work without a namespace into the consumer given; a work
// naming another consumer, or one the consumer already holds, is refused.
func TestAdopt(t *testing.T) {
	const work = `{"metadata": {"name": "w1"%s}, "spec": {"workload": {"manifests": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}}]}}}`
	s := New(Options{})
	if err := s.Adopt("c1", []byte(strings.Replace(work, "%s", "", 1))); err != nil {
		t.Fatal(err)
	}
	if w, err := s.Get(context.Background(), "c1", "w1"); err != nil || w.Namespace != "c1" || w.Generation != 1 {
		t.Fatalf("adopted work %+v, %v", w, err)
	}
	for _, tt := range []struct{ ns, want string }{
		{"", "already holds it"},
		{`, "namespace": "c2"`, `metadata.namespace "c2" is not the consumer "c1"`},
	} {
		err := s.Adopt("c1", []byte(strings.Replace(work, "%s", tt.ns, 1)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("namespace %q: error %v, want %q", tt.ns, err, tt.want)
		}
	}
}
