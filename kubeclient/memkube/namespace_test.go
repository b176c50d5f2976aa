package memkube_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

// The in-memory API server refuses what the real one refuses (issue 28
// #15): an object in a namespace that is not a namespace name ("*", " ",
// "..", upper case, 64 bytes) is never created, by Create or by Seed
// (dry-run's discovery files), so dry-run cannot show a create the real
// server would refuse.
func TestNamespaceMustBeAName(t *testing.T) {
	for _, ns := range []string{"*", " ", "..", "a.b", "A", "a/b", strings.Repeat("a", 64), "-a"} {
		t.Run(ns, func(t *testing.T) {
			s := memkube.New(memkube.Options{})
			_, err := s.Create(context.Background(), object("v1", "ConfigMap", ns, "x", nil))
			if !errors.Is(err, adapter.ErrInvalid) || !strings.Contains(err.Error(), "namespace") {
				t.Errorf("Create in namespace %q: %v, want ErrInvalid naming the namespace", ns, err)
			}
			if err := s.Seed(object("v1", "ConfigMap", ns, "x", nil)); err == nil {
				t.Errorf("Seed in namespace %q accepted", ns)
			}
			if n := len(s.Objects()); n != 0 {
				t.Errorf("%d objects stored", n)
			}
		})
	}
}
