package bundles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
)

// FingerprintAnnotation holds a bundle's fingerprint on the bundle itself.
const FingerprintAnnotation = "bundle-adapter.io/fingerprint"

// ReplacedAnnotation is set by the adapter on a bundle created at the end of
// a recreation: the fingerprint of the bundle it replaced (that bundle's
// FingerprintAnnotation). It is added to the create request only, after the
// desired bundle was fingerprinted, so it is never part of a fingerprint:
// the fingerprint compared on later events is the one FingerprintAnnotation
// stores, computed from the rendered bundle, which does not carry it. An
// update in place replaces the annotations and drops it. Templates should
// not set it.
const ReplacedAnnotation = "bundle-adapter.io/replaced-fingerprint"

// WriteIDAnnotation is set by the bundle view (maestroclient/view) on every
// bundle it sees this process create: a value unique to that create, which
// the status stream echoes, so that the view can tell the agent's statuses
// of the bundle it created from those of an earlier bundle of the same
// name (same uid, same generation 1). Like ReplacedAnnotation it is added
// to the create request only, after the desired bundle was fingerprinted,
// so it is never part of a fingerprint; an update in place drops it.
// Templates should not set it.
const WriteIDAnnotation = "bundle-adapter.io/write-id"

// Fingerprint is the hex SHA-256 of Canonical of exactly spec.workload.manifests,
// spec.deleteOption, spec.manifestConfigs, metadata.labels and
// metadata.annotations minus FingerprintAnnotation; absent and empty are the
// same (see the package documentation for the exact document hashed). The
// same meaning gives the same fingerprint across processes and versions:
// map order, YAML key order and whitespace, and number spelling (1 and 1.0)
// never change it. work is not modified.
func Fingerprint(work map[string]any) (string, error) {
	doc, err := fingerprintDoc(work)
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	e := canonGet(false)
	defer canonPut(e)
	if err := e.object(doc); err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sum := sha256.Sum256(e.buf)
	return hex.EncodeToString(sum[:]), nil
}

// fingerprintDoc picks the fingerprinted members out of work: every
// member of metadata, spec and spec.workload but those NotFingerprinted
// lists. The five members fingerprinted since the first version keep their
// short keys (manifests, deleteOption, manifestConfigs, labels,
// annotations); any other is keyed by its path ("spec.executor"), so a
// bundle that does not use one keeps the fingerprint it had before the
// member was covered.
func fingerprintDoc(work map[string]any) (map[string]any, error) {
	metadata, err := fingerprintObject(work, "metadata", "metadata")
	if err != nil {
		return nil, err
	}
	spec, err := fingerprintObject(work, "spec", "spec")
	if err != nil {
		return nil, err
	}
	workload, err := fingerprintObject(spec, "workload", "spec.workload")
	if err != nil {
		return nil, err
	}
	doc := make(map[string]any, 5)
	fingerprintMembers(doc, "metadata", metadata)
	fingerprintMembers(doc, "spec", spec)
	fingerprintMembers(doc, "spec.workload", workload)
	return doc, nil
}

// fingerprintKeys are the document keys of the members fingerprinted since
// the first version; see fingerprintDoc.
var fingerprintKeys = map[string]string{
	"metadata.labels":         "labels",
	"metadata.annotations":    "annotations",
	"spec.deleteOption":       "deleteOption",
	"spec.manifestConfigs":    "manifestConfigs",
	"spec.workload.manifests": "manifests",
}

// fingerprintMembers puts every member of obj (at path) into doc, but
// spec.workload (walked on its own) and those NotFingerprinted lists.
func fingerprintMembers(doc map[string]any, path string, obj map[string]any) {
	for k, v := range obj {
		p := path + "." + k
		if _, skip := NotFingerprinted[p]; skip || p == "spec.workload" {
			continue
		}
		key, ok := fingerprintKeys[p]
		if !ok {
			key = p
		}
		if p == "metadata.annotations" {
			v = fingerprintAnnotations(v)
		}
		fingerprintPut(doc, key, v)
	}
}

// fingerprintObject returns parent[key] as a map; absent or null is nil.
func fingerprintObject(parent map[string]any, key, path string) (map[string]any, error) {
	switch v := parent[key].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return v, nil
	default:
		return nil, fmt.Errorf("%s must be an object, not %T", path, v)
	}
}

// fingerprintPut sets doc[key] unless v is null or an empty list or map.
func fingerprintPut(doc map[string]any, key string, v any) {
	if v == nil {
		return
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice:
		if rv.Len() == 0 {
			return
		}
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return
		}
	}
	doc[key] = v
}

// fingerprintAnnotations returns annotations without FingerprintAnnotation,
// copying only when it is present.
func fingerprintAnnotations(v any) any {
	switch a := v.(type) {
	case map[string]any:
		if _, ok := a[FingerprintAnnotation]; !ok {
			return a
		}
		out := make(map[string]any, len(a))
		for k, val := range a {
			if k != FingerprintAnnotation {
				out[k] = val
			}
		}
		return out
	case map[string]string:
		if _, ok := a[FingerprintAnnotation]; !ok {
			return a
		}
		out := make(map[string]string, len(a))
		for k, val := range a {
			if k != FingerprintAnnotation {
				out[k] = val
			}
		}
		return out
	}
	return v
}

// Stamp sets the fingerprint annotation on work, creating metadata and
// metadata.annotations when absent. A metadata or annotations value that is
// not a map is replaced. work must not be nil.
func Stamp(work map[string]any, fingerprint string) {
	metadata, _ := work["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
		work["metadata"] = metadata
	}
	switch a := metadata["annotations"].(type) {
	case map[string]any:
		if a != nil {
			a[FingerprintAnnotation] = fingerprint
			return
		}
	case map[string]string:
		if a != nil {
			a[FingerprintAnnotation] = fingerprint
			return
		}
	}
	metadata["annotations"] = map[string]any{FingerprintAnnotation: fingerprint}
}

// IsFingerprint reports whether s has the form Fingerprint returns: 64
// lowercase hexadecimal digits. A fingerprint annotation read back from
// Maestro is only trusted (kept, or copied into ReplacedAnnotation) when it
// has that form, so a corrupt or hostile one cannot grow memory or a new
// bundle's annotations.
func IsFingerprint(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NotFingerprinted lists each field of a ManifestWork that Fingerprint
// (and so the Maestro adoption comparison, which compares fingerprints)
// leaves out, by JSON path, with the reason. Every other field of the work
// is fingerprinted, whatever the type gains: a test walks
// workv1.ManifestWork by reflection and fails on a field that is neither.
// The fingerprint annotation itself is left out of metadata.annotations
// (it cannot hold its own hash).
var NotFingerprinted = map[string]string{
	"apiVersion": notFPType,
	"kind":       notFPType,

	"metadata.name":      "the bundle's address: a work of another name is another bundle, found and compared on its own",
	"metadata.namespace": "the bundle's address: the consumer (target cluster) the work is sent to",

	"metadata.selfLink":                   notFPServer,
	"metadata.uid":                        notFPServer,
	"metadata.resourceVersion":            notFPServer,
	"metadata.generation":                 notFPServer,
	"metadata.creationTimestamp":          notFPServer,
	"metadata.deletionTimestamp":          notFPServer,
	"metadata.deletionGracePeriodSeconds": notFPServer,
	"metadata.managedFields":              notFPServer,

	"status": "written by the work agent on the managed cluster, never sent",
}

const (
	notFPType   = "the type of every bundle: each is sent as a work.open-cluster-management.io/v1 ManifestWork"
	notFPServer = "kept by Maestro: assigned on its writes and read back on every work, never the content the agent applies"
)
