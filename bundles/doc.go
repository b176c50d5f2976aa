// Package bundles renders ManifestWork bundles from compiled templates,
// encodes them canonically and fingerprints them.
//
// Everything here is on the per-event path: nothing parses YAML or templates
// except the documented slow path for Whole manifests (task.Manifest.Whole),
// whose rendered text is YAML-decoded on every render.
//
// # Fingerprint
//
// Fingerprint is the hex SHA-256 of the canonical JSON (see Canonical) of a
// document holding exactly what the agent acts on:
//
//	{"annotations":     metadata.annotations without FingerprintAnnotation,
//	 "deleteOption":    spec.deleteOption,
//	 "labels":          metadata.labels,
//	 "manifestConfigs": spec.manifestConfigs,
//	 "manifests":       spec.workload.manifests}
//
// A member that is absent, null or an empty list or mapping is left out, so
// absent and empty mean the same. Nothing else of the work (name, namespace,
// status, resourceVersion, ...) is part of it. The canonical form and this
// document shape are a compatibility contract: fingerprints are stored on
// bundles in Maestro and compared by every later adapter version, so changing
// either makes every bundle look changed once. A golden test guards them.
package bundles
