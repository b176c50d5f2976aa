package kubeclient

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

// sentinelText matches the adapter sentinels' own texts, which speak of
// Maestro and bundles. A Kubernetes refusal must not be worded as Maestro's.
var sentinelText = regexp.MustCompile(`(?i)maestro|bundle`)

// TestKubeErrorsAreWordedAsKubernetes enumerates the class by source: no
// file of kubeclient or memkube (tests aside) may wrap an adapter sentinel
// with fmt.Errorf, which would print the sentinel's Maestro wording; they
// go through kubeerr, which keeps errors.Is and words the refusal as the
// Kubernetes API's.
func TestKubeErrorsAreWordedAsKubernetes(t *testing.T) {
	wrap := regexp.MustCompile(`fmt\.Errorf\([^\n]*adapter\.Err[A-Za-z]+`)
	for _, dir := range []string{".", "memkube"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range wrap.FindAll(src, -1) {
				t.Errorf("%s: %s: wraps an adapter sentinel with its Maestro wording; use kubeerr.Wrap", f, m)
			}
		}
	}
}

// TestKubeRefusalWording: the errors a Kubernetes API server (real, through
// classify, or memkube) answers keep their sentinel and never read as
// Maestro's.
func TestKubeRefusalWording(t *testing.T) {
	store := memkube.New(memkube.Options{})
	ctx := context.Background()
	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "a", "labels": map[string]any{"cluster_name": "<no value>"}},
	}}
	_, memInvalid := store.Create(ctx, bad)
	_, memNotFound := store.Get(ctx, cmRef)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"memkube 422", memInvalid, adapter.ErrInvalid},
		{"memkube 404", memNotFound, adapter.ErrNotFound},
		{"classify 422", classify("apply", cmRef, apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "cm1", nil)), adapter.ErrInvalid},
		{"classify 404", classify("get", cmRef, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "cm1")), adapter.ErrNotFound},
		{"classify 409", classify("create", cmRef, apierrors.NewAlreadyExists(schema.GroupResource{Resource: "configmaps"}, "cm1")), adapter.ErrAlreadyExists},
		{"classify 503", classify("get", cmRef, apierrors.NewServiceUnavailable("down")), adapter.ErrUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, c.want) {
				t.Fatalf("error %v is not %v", c.err, c.want)
			}
			if sentinelText.MatchString(c.err.Error()) {
				t.Fatalf("a Kubernetes refusal worded as Maestro's: %v", c.err)
			}
			if !strings.Contains(strings.ToLower(c.err.Error()), "kubernetes") {
				t.Fatalf("error %v does not name Kubernetes, the boundary that refused", c.err)
			}
		})
	}
}
