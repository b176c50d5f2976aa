package adapter

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// maxObjectName is the longest name the API server accepts for any kind
// (a DNS subdomain; most kinds accept fewer).
const maxObjectName = validation.DNS1123SubdomainMaxLength

// checkDiscoveryNamespace refuses a discovery.namespace that a template
// rendered to something other than a namespace name: "" and "*" (every
// namespace) are the config's to say, literally, never an event's.
func checkDiscoveryNamespace(t *tmpl.Text, ns string) error {
	literal := t == nil || t.T == nil || t.T.IsLiteral()
	if literal && (ns == "" || ns == "*") {
		return nil
	}
	return checkNamespace("discovery.namespace", ns)
}

// checkNamespace refuses anything but a namespace name (a DNS-1123 label:
// at most 63 lower-case letters, digits and '-'), naming the field.
func checkNamespace(field, ns string) error {
	if ns == "" || ns == "*" {
		return fmt.Errorf("%s rendered %q: a namespace must be named (every namespace only for a literal \"*\" in the config)", field, ns)
	}
	if len(ns) > validation.DNS1123LabelMaxLength {
		return fmt.Errorf("%s rendered a namespace of %d bytes, longer than %d", field, len(ns), validation.DNS1123LabelMaxLength)
	}
	if msgs := validation.IsDNS1123Label(ns); len(msgs) != 0 {
		return fmt.Errorf("%s rendered %q, not a namespace name: %s", field, ns, strings.Join(msgs, "; "))
	}
	return nil
}

// checkName refuses a name no kind accepts: empty, "*", ".", "..", one with
// '/', '%', a space or a control character, or longer than 253 bytes.
func checkName(field, name string) error {
	switch {
	case name == "" || name == "*" || name == "." || name == "..":
		return fmt.Errorf("%s rendered %q, not an object name", field, name)
	case len(name) > maxObjectName:
		return fmt.Errorf("%s rendered a name of %d bytes, longer than %d", field, len(name), maxObjectName)
	case strings.ContainsAny(name, "/%*"):
		return fmt.Errorf("%s rendered %q, not an object name: it contains '/', '%%' or '*'", field, name)
	}
	for _, c := range name {
		if c <= ' ' || c == 0x7f {
			return fmt.Errorf("%s rendered %q, not an object name: it contains a space or a control character", field, name)
		}
	}
	return nil
}

// checkObjectAddress refuses a rendered object whose metadata.name or
// metadata.namespace (when given) is not a name, so no request is ever
// addressed by an event value that is not one.
func checkObjectAddress(obj *unstructured.Unstructured) error {
	if err := checkName("metadata.name", obj.GetName()); err != nil {
		return err
	}
	if obj.GetAPIVersion() == "v1" && obj.GetKind() == "Namespace" {
		// A Namespace's name is a namespace name: the same rule.
		return checkNamespace("metadata.name", obj.GetName())
	}
	if _, given := obj.Object["metadata"].(map[string]any)["namespace"]; given {
		return checkNamespace("metadata.namespace", obj.GetNamespace())
	}
	return nil
}
