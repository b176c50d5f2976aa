package bundles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// serverMetadata are the metadata fields the API server sets; they never
// take part in an object's fingerprint.
var serverMetadata = []string{"uid", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"}

// ObjectFingerprint is the fingerprint of one Kubernetes object as the
// kubernetes transport applies it: the hex SHA-256 of Canonical of the whole
// object except status, the metadata the API server sets (uid,
// resourceVersion, generation, timestamps, managedFields) and
// FingerprintAnnotation; absent and empty labels or annotations are the
// same. Like Fingerprint it is stable across processes and versions. obj is
// not modified.
func ObjectFingerprint(obj map[string]any) (string, error) {
	doc := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "status" && k != "metadata" {
			doc[k] = v
		}
	}
	metadata, err := fingerprintObject(obj, "metadata", "metadata")
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	meta := make(map[string]any, len(metadata))
	for k, v := range metadata {
		meta[k] = v
	}
	for _, k := range serverMetadata {
		delete(meta, k)
	}
	delete(meta, "labels")
	delete(meta, "annotations")
	fingerprintPut(meta, "labels", metadata["labels"])
	fingerprintPut(meta, "annotations", fingerprintAnnotations(metadata["annotations"]))
	fingerprintPut(doc, "metadata", meta)
	e := canonGet(false)
	defer canonPut(e)
	if err := e.object(doc); err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sum := sha256.Sum256(e.buf)
	return hex.EncodeToString(sum[:]), nil
}
