package memmaestro

import (
	"context"
	"strconv"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Update replaces the labels, annotations and spec of the stored work with
// deep copies of desired's, increments generation and resourceVersion, and
// keeps uid, creationTimestamp and status (AutoStatus then reports the new
// generation). The work is addressed by desired.Name, or observed.Name when
// desired has none; observed is otherwise ignored.
//
// Errors: adapter.ErrInvalid for a missing desired or name, names that
// disagree, a namespace other than consumer, or invalid metadata or
// manifests; adapter.ErrNotFound when the work does not exist;
// adapter.ErrUnderDeletion when it carries a deletionTimestamp. Nothing
// changes on error.
func (s *Store) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	name := updateName(observed, desired)
	if err := s.begin(ctx, VerbUpdate, consumer, name); err != nil {
		return nil, err
	}
	if desired == nil {
		return nil, callError(VerbUpdate, consumer, name, adapter.ErrInvalid, "no desired work given")
	}
	if observed != nil && observed.Name != "" && desired.Name != "" && observed.Name != desired.Name {
		return nil, callError(VerbUpdate, consumer, name, adapter.ErrInvalid,
			"observed name "+strconv.Quote(observed.Name)+" differs from desired name "+strconv.Quote(desired.Name))
	}
	addr := &workv1.ManifestWork{}
	addr.Name, addr.Namespace = name, desired.Namespace
	if err := validateAddress(consumer, addr); err != nil {
		return nil, callError(VerbUpdate, consumer, name, adapter.ErrInvalid, err.Error())
	}
	in := desired.DeepCopy()
	if err := encodeManifests(in.Spec.Workload.Manifests); err != nil {
		return nil, callError(VerbUpdate, consumer, name, adapter.ErrInvalid, err.Error())
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{consumer, name}
	old, ok := s.works[k]
	if !ok {
		return nil, callError(VerbUpdate, consumer, name, adapter.ErrNotFound, "")
	}
	if old.DeletionTimestamp != nil {
		return nil, callError(VerbUpdate, consumer, name, adapter.ErrUnderDeletion,
			"deletion requested at "+old.DeletionTimestamp.UTC().Format("2006-01-02T15:04:05Z"))
	}
	w := old.DeepCopy()
	w.Labels, w.Annotations, w.Spec = in.Labels, in.Annotations, in.Spec
	if err := validateContent(w); err != nil {
		return nil, callError(VerbUpdate, consumer, name, adapter.ErrInvalid, err.Error())
	}
	w.Generation++
	w.ResourceVersion = strconv.FormatInt(w.Generation, 10)
	if s.autoStatus {
		s.reportApplied(w)
	}
	s.works[k] = w
	return w.DeepCopy(), nil
}

// updateName is the name an Update addresses.
func updateName(observed, desired *workv1.ManifestWork) string {
	if desired != nil && desired.Name != "" {
		return desired.Name
	}
	if observed != nil {
		return observed.Name
	}
	return ""
}
