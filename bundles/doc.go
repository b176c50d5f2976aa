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
// document holding every member of the work's metadata, spec and
// spec.workload but those NotFingerprinted lists with their reasons (the
// type, the address name/namespace, what Maestro keeps: uid,
// resourceVersion, generation, timestamps, managedFields; and status).
// The five members fingerprinted since the first version keep short keys:
//
//	{"annotations":     metadata.annotations without FingerprintAnnotation,
//	 "deleteOption":    spec.deleteOption,
//	 "labels":          metadata.labels,
//	 "manifestConfigs": spec.manifestConfigs,
//	 "manifests":       spec.workload.manifests,
//	 "spec.executor":   spec.executor, and any other member by its path}
//
// A member that is absent, null or an empty list or mapping is left out, so
// absent and empty mean the same, and a bundle that uses none of the
// members added later keeps the fingerprint earlier versions gave it. The
// canonical form and this document shape are a compatibility contract:
// fingerprints are stored on bundles in Maestro and compared by every later
// adapter version, so changing either makes the bundles it touches look
// changed once (one update each, then unchanged). A golden test guards
// them, and a reflection test over workv1.ManifestWork fails on a field
// that is neither fingerprinted nor listed.
package bundles
