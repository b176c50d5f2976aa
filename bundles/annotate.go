package bundles

import (
	"maps"

	workv1 "open-cluster-management.io/api/work/v1"
)

// WithAnnotation is work with annotation key set to value, for the
// annotations added to a create request after the bundle was fingerprinted
// (ReplacedAnnotation, WriteIDAnnotation): a shallow copy with annotations
// of its own, so work itself is unchanged.
func WithAnnotation(work *workv1.ManifestWork, key, value string) *workv1.ManifestWork {
	w := *work
	w.Annotations = maps.Clone(work.Annotations)
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[key] = value
	return &w
}
