package adapter

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// Rendering a bundle: the manifest template rendered into a ManifestWork
// tree, normalized, fingerprinted (bundles.Fingerprint), stamped and
// checked to decode as a write would send it.

// renderWork renders b's tree, normalized and stamped, and its
// fingerprint. A tree that would not decode into a ManifestWork fails here
// (checkRendered), with decodeRendered's error.
func (r *eventRun) renderWork(b *bundle) (map[string]any, string, error) {
	ctx, cancel := r.renderContext()
	tree, err := bundles.RenderContext(ctx, b.res.Manifest.Compiled, r.data, r.now)
	cancel()
	if err != nil {
		return nil, "", &renderError{r.templateError(ctx, err)}
	}
	normalizeWork(tree, b.workName, b.consumer)
	fp, err := bundles.Fingerprint(tree)
	if err != nil {
		return nil, "", &renderError{err}
	}
	bundles.Stamp(tree, fp)
	if err := bundles.CheckSize(b.res.Name, tree); err != nil {
		return nil, "", &renderError{err}
	}
	if err := checkRendered(tree); err != nil {
		return nil, "", invalidWork(err)
	}
	return tree, fp, nil
}

// invalidWork is the render error of a tree that does not decode.
func invalidWork(err error) error {
	return &renderError{fmt.Errorf("rendered bundle is not a valid ManifestWork: %w", err)}
}

// decodeWork converts a rendered tree into a ManifestWork. Fields the type
// does not have (spec.deleteOption.gracePeriodSeconds in HyperFleet's
// examples) are dropped, as Maestro drops them, and returned as paths; the
// load warns about them (CheckWork). A value of the wrong type is an error.
func decodeWork(tree map[string]any) (*workv1.ManifestWork, []string, error) {
	var work workv1.ManifestWork
	err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(tree, &work, true)
	strict, isStrict := runtime.AsStrictDecodingError(err)
	if err != nil && !isStrict {
		return nil, nil, err
	}
	var dropped []string
	if isStrict {
		for _, e := range strict.Errors() {
			msg := e.Error()
			if f, ok := strings.CutPrefix(msg, `unknown field "`); ok {
				msg = strings.TrimSuffix(f, `"`)
			}
			dropped = append(dropped, msg)
		}
	}
	return &work, dropped, nil
}

// decodeRendered is decodeWork without the dropped fields, which an event
// does not report (the load warned about them): the same work and the same
// error, without the converter's unknown-field tracking (a set of matched
// keys and a path per struct), which only feeds the strict error decodeWork
// turns into the dropped paths.
func decodeRendered(tree map[string]any) (*workv1.ManifestWork, error) {
	var work workv1.ManifestWork
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tree, &work); err != nil {
		return nil, err
	}
	return &work, nil
}

// checkRendered is decodeRendered's error (or nil) for tree, without
// encoding the manifests: the tree is decoded with its manifests list
// replaced by one of as many nulls. Converting a manifest cannot fail: a
// Manifest takes the JSON encoding of any value (runtime.RawExtension), and
// a rendered tree holds JSON values only (CheckSize has encoded it), so the
// manifests contribute no error, and every other field fails as it would.
func checkRendered(tree map[string]any) error {
	_, err := decodeRendered(withoutManifests(tree))
	return err
}

// withoutManifests is tree with spec.workload.manifests, when a list,
// replaced by a list of as many nulls; tree is not modified.
func withoutManifests(tree map[string]any) map[string]any {
	spec, _ := tree["spec"].(map[string]any)
	workload, _ := spec["workload"].(map[string]any)
	manifests, isList := workload["manifests"].([]any)
	if !isList || manifests == nil {
		return tree
	}
	return withMember(tree, "spec", withMember(spec, "workload", withMember(workload, "manifests", make([]any, len(manifests)))))
}

// withMember is a shallow copy of m with m[k] = v.
func withMember(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// CheckWork is the task.WorkChecker of this adapter: the fields of a
// rendered ManifestWork that decoding drops. A tree that does not decode
// at all reports nothing here; rendering the real event reports it.
func CheckWork(tree map[string]any) []string {
	_, dropped, _ := decodeWork(tree)
	return dropped
}

// normalizeWork fills what the template may leave out: kind, apiVersion,
// the name from discovery and the consumer as namespace.
func normalizeWork(tree map[string]any, name, consumer string) {
	tree["apiVersion"] = "work.open-cluster-management.io/v1"
	tree["kind"] = "ManifestWork"
	meta, _ := tree["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		tree["metadata"] = meta
	}
	meta["name"] = name
	meta["namespace"] = consumer
}

type renderError struct{ err error }

func (e *renderError) Error() string { return "render: " + e.err.Error() }
func (e *renderError) Unwrap() error { return e.err }
