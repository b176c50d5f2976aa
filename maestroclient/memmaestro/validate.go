package memmaestro

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	workv1 "open-cluster-management.io/api/work/v1"
)

// validateAddress checks what Maestro checks before looking the work up: the
// consumer and work names are DNS-1123 labels and the work's namespace, when
// set, is the consumer.
func validateAddress(consumer string, w *workv1.ManifestWork) error {
	var errs []string
	if consumer == "" {
		errs = append(errs, "consumer is required")
	} else {
		for _, msg := range validation.IsDNS1123Label(consumer) {
			errs = append(errs, fmt.Sprintf("consumer %q: %s", consumer, msg))
		}
	}
	if w.Name == "" {
		errs = append(errs, "metadata.name is required")
	} else {
		for _, msg := range validation.IsDNS1123Label(w.Name) {
			errs = append(errs, fmt.Sprintf("metadata.name %q: %s", w.Name, msg))
		}
	}
	if w.Namespace != "" && w.Namespace != consumer {
		errs = append(errs, fmt.Sprintf("metadata.namespace %q does not match consumer %q", w.Namespace, consumer))
	}
	return joinMessages(errs)
}

// validateContent checks the labels, annotations and manifests of w as
// Maestro's work validation does. Manifests must be encoded.
func validateContent(w *workv1.ManifestWork) error {
	var errs []string
	md := field.NewPath("metadata")
	for _, e := range metav1validation.ValidateLabels(w.Labels, md.Child("labels")) {
		errs = append(errs, e.Error())
	}
	for _, e := range apivalidation.ValidateAnnotations(w.Annotations, md.Child("annotations")) {
		errs = append(errs, e.Error())
	}
	manifests := w.Spec.Workload.Manifests
	if len(manifests) == 0 {
		errs = append(errs, "spec.workload.manifests must not be empty")
	}
	for i, m := range manifests {
		if err := validateManifest(m.Raw); err != nil {
			errs = append(errs, fmt.Sprintf("spec.workload.manifests[%d]: %v", i, err))
		}
	}
	return joinMessages(errs)
}

func validateManifest(raw []byte) error {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return err
	}
	if obj.GetName() == "" {
		return errors.New("name must be set in manifest")
	}
	if obj.GetGenerateName() != "" {
		return errors.New("generateName must not be set in manifest")
	}
	return nil
}

// encodeManifests sets Raw from Object where Raw is empty, as the Maestro
// client does before publishing, and drops Object.
func encodeManifests(manifests []workv1.Manifest) error {
	for i := range manifests {
		m := &manifests[i]
		if len(m.Raw) == 0 {
			if m.Object == nil {
				return fmt.Errorf("spec.workload.manifests[%d]: both raw and object are empty", i)
			}
			raw, err := json.Marshal(m.Object)
			if err != nil {
				return fmt.Errorf("spec.workload.manifests[%d]: %w", i, err)
			}
			m.Raw = raw
		}
		m.Object = nil
	}
	return nil
}

func joinMessages(msgs []string) error {
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}
