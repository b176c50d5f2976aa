package kubecontract

import (
	"slices"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// listByLabels: List returns the objects of a kind whose labels match every
// label given, in one namespace or across all; ref.Name is ignored.
func listByLabels(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	run := unique("list")
	a := mustCreate(t, ctx, h, ConfigMap(h.Namespace, run+"-a", "fp", nil, map[string]string{LabelRun: run, "group": "a"}))
	b := mustCreate(t, ctx, h, ConfigMap(h.Namespace, run+"-b", "fp", nil, map[string]string{LabelRun: run, "group": "b"}))
	mustCreate(t, ctx, h, ConfigMap(h.Namespace, run+"-other", "fp", nil, map[string]string{LabelRun: run + "-other", "group": "a"}))

	cases := []struct {
		name      string
		namespace string
		labels    map[string]string
		want      []string
	}{
		{"one label, two match", h.Namespace, map[string]string{LabelRun: run}, []string{a.GetName(), b.GetName()}},
		{"two labels, one matches", h.Namespace, map[string]string{LabelRun: run, "group": "a"}, []string{a.GetName()}},
		{"no match", h.Namespace, map[string]string{LabelRun: run, "group": "c"}, nil},
		{"all namespaces", "", map[string]string{LabelRun: run, "group": "b"}, []string{b.GetName()}},
		{"another namespace", h.Namespace + "-elsewhere", map[string]string{LabelRun: run}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref := RefOf(a)
			ref.Namespace = c.namespace
			ref.Name = "ignored-by-list"
			objs, err := h.Kube.List(ctx, ref, c.labels)
			if err != nil {
				t.Fatalf("List %v in %q: %v", c.labels, c.namespace, err)
			}
			var got []string
			for _, o := range objs {
				if o.GetKind() != "ConfigMap" || o.GetAPIVersion() != "v1" {
					t.Errorf("List returned apiVersion %q kind %q, want v1 ConfigMap", o.GetAPIVersion(), o.GetKind())
				}
				if o.GetUID() == "" {
					t.Errorf("List returned %s without uid", o.GetName())
				}
				got = append(got, o.GetName())
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("List %v in %q = %v, want %v", c.labels, c.namespace, got, c.want)
			}
		})
	}
}

// listInvalidLabels: a label key or value that Kubernetes would not accept
// on an object is ErrInvalid naming it, and returns nothing: a value
// rendered from an event cannot add terms to the selector.
func listInvalidLabels(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	run := unique("list-invalid")
	a := mustCreate(t, ctx, h, ConfigMap(h.Namespace, run+"-a", "fp", nil, map[string]string{LabelRun: run, "group": "a"}))
	cases := []struct {
		name   string
		labels map[string]string
		names  string // what the error must name
	}{
		{"a value that adds a term", map[string]string{LabelRun: run + ",group!=b"}, "group!=b"},
		{"a value that ends the term", map[string]string{"group": "a", LabelRun: "x)"}, "x)"},
		{"a value with a space", map[string]string{LabelRun: "a b"}, "a b"},
		{"a value too long", map[string]string{LabelRun: strings.Repeat("x", 64)}, strings.Repeat("x", 64)},
		{"a key with a comma", map[string]string{"group,x": "a"}, "group,x"},
		{"an empty key", map[string]string{"": "a"}, `""`},
		{"a key of three segments", map[string]string{"a/b/c": "a"}, "a/b/c"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, err := h.Kube.List(ctx, RefOf(a), c.labels)
			wantErr(t, "List "+c.name, err, adapter.ErrInvalid)
			if err != nil && !strings.Contains(err.Error(), c.names) {
				t.Errorf("List %q: error does not name %s: %v", c.labels, c.names, err)
			}
			if len(objs) != 0 {
				t.Errorf("List %q returned %d objects, want none", c.labels, len(objs))
			}
		})
	}
}
