package memkube

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// validate refuses, as the API server does with 422, an object whose name
// its kind does not accept, whose namespace is not a namespace name (a Namespace's is a DNS label, a Service's a
// DNS-1035 label, every other kind's a DNS subdomain) or whose labels
// Kubernetes does not accept. The error is ErrInvalid naming the value.
func validate(verb string, obj *unstructured.Unstructured) error {
	var msgs []string
	if verb == VerbCreate {
		name := obj.GetName()
		if errs := nameRule(obj.GetKind())(name); len(errs) > 0 {
			msgs = append(msgs, fmt.Sprintf("metadata.name %q: %s", name, strings.Join(errs, ", ")))
		}
		if msg := checkNamespace(obj.GetNamespace()); msg != "" {
			msgs = append(msgs, msg)
		}
	}
	for k, v := range obj.GetLabels() {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			msgs = append(msgs, fmt.Sprintf("metadata.labels key %q: %s", k, strings.Join(errs, ", ")))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			msgs = append(msgs, fmt.Sprintf("metadata.labels %q value %q: %s", k, v, strings.Join(errs, ", ")))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return kubeerr.Wrap(adapter.ErrInvalid, "memkube: %s %s: 422, %s", verb, describe(refOf(obj)), strings.Join(msgs, "; "))
}

// checkNamespace is the API server's validation of metadata.namespace (a
// DNS label; "" for a cluster-scoped object): "" when valid, else the
// message. No namespace "*" can exist, so nothing is ever created in one.
func checkNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fmt.Sprintf("metadata.namespace %q: %s", ns, strings.Join(errs, ", "))
	}
	return ""
}

// nameRule is the API server's validation of a kind's object names.
func nameRule(kind string) func(string) []string {
	switch kind {
	case "Namespace":
		return validation.IsDNS1123Label
	case "Service":
		return validation.IsDNS1035Label
	}
	return validation.IsDNS1123Subdomain
}
