package adapter

import (
	"errors"
	"strconv"

	workv1 "open-cluster-management.io/api/work/v1"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// DefaultAdoptions bounds how many adoption results a pipeline remembers
// (bundles.Memo: 48 bytes each).
const DefaultAdoptions = bundles.DefaultMemoSize

// Adoption (docs/architecture.md, "Adoption"): an object another writer
// made (hyperfleet-adapter before a cut-over, a person) carries no
// fingerprint annotation, so the fingerprint comparison alone would read
// it as changed and rewrite it. When its content already equals what this
// adapter would write, the decision is unchanged with reason Adopted and
// nothing is written; when it differs, the usual update writes it once
// (and stamps the fingerprint, so later events compare as usual).
//
// An adoption is remembered by the observed object's identity and
// version (uid and Maestro's generation for a bundle; uid and
// resourceVersion for a kubernetes object), so later events of an adopted
// object cost what an unchanged event costs: a version changes with every
// write, and then the object is compared again. An object without a uid or
// version is compared on every event.

// adoptBundle reports whether the observed bundle, without a fingerprint
// annotation, holds the desired content: its manifests, deleteOption,
// manifestConfigs, labels and annotations (bundles.Fingerprint) are those
// of the rendered bundle. Both sides are compared as ManifestWorks (the
// rendered tree decoded as a write would send it, and the observed work
// as Maestro returned it), so fields the type fills in (an empty
// resourceIdentifier.namespace) or drops compare alike. b.fingerprint is
// the desired one (decide asked for it first); a bundle the memo answered
// is rendered here, once per object version.
func (r *eventRun) adoptBundle(b *bundle, t *maestroTarget) bool {
	m := b.obs.meta()
	if m == nil || b.fingerprint == "" {
		return false
	}
	key, keyed := adoptionKey("maestro", b.consumer, b.workName, string(m.GetUID()), strconv.FormatInt(m.GetGeneration(), 10))
	if keyed {
		if fp, ok := r.p.adoptions.Get(key); ok {
			return fp == b.fingerprint
		}
	}
	desired, err := t.desiredWork(r, b)
	if err != nil {
		return false
	}
	want, err := workFingerprint(desired, nil)
	if err != nil {
		return false
	}
	got, err := workFingerprint(b.obs.work, b.obs.viewObj)
	if err != nil || got != want {
		return false
	}
	if keyed {
		r.p.adoptions.Put(key, b.fingerprint)
	}
	return true
}

// workFingerprint is bundles.Fingerprint of a work as the unstructured
// object runtime's converter makes of it (obj, when the view already made
// it).
func workFingerprint(work *workv1.ManifestWork, obj map[string]any) (string, error) {
	if obj == nil {
		if work == nil {
			return "", errNoWork
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(work)
		if err != nil {
			return "", err
		}
		obj = u
	}
	return bundles.Fingerprint(obj)
}

var errNoWork = errors.New("no work")

// adoptObject reports whether the observed kubernetes object, without a
// fingerprint annotation, already holds every field of the rendered one
// (bundles.Contains: what the API server adds is ignored).
func (r *eventRun) adoptObject(b *bundle, k *kubeTarget) bool {
	live := b.obs.obj
	if live == nil || k.desired == nil {
		return false
	}
	key, keyed := adoptionKey("kubernetes", live.GetAPIVersion(), live.GetKind(), live.GetNamespace(), live.GetName(),
		string(live.GetUID()), live.GetResourceVersion())
	if keyed {
		if fp, ok := r.p.adoptions.Get(key); ok {
			return fp == b.fingerprint
		}
	}
	if !bundles.Contains(live.Object, k.desired.Object) {
		return false
	}
	if keyed {
		r.p.adoptions.Put(key, b.fingerprint)
	}
	return true
}

// adoptionKey is the memo key of one version of an observed object; false
// when the object has no uid or version to tell its versions apart.
func adoptionKey(id ...string) (bundles.MemoKey, bool) {
	uid, version := id[len(id)-2], id[len(id)-1]
	if uid == "" || version == "" || version == "0" {
		return bundles.MemoKey{}, false
	}
	return bundles.MemoKeyOf(append([]string{"adopt"}, id...), nil, nil)
}

// markAdopted reports an adoption in the outcome (reason Adopted).
func (r *eventRun) markAdopted(b *bundle, d decision) {
	if d.adopted && b.out.State == StateDone {
		b.out.Reason = ReasonAdopted
	}
}
