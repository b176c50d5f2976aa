package memmaestro

import (
	"context"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Create stores a deep copy of work for consumer and returns the stored work.
// Server-managed fields of work are ignored: namespace becomes consumer, uid
// is derived from (source, consumer, name), creationTimestamp is now,
// generation and resourceVersion start at 1, finalizers and status are
// cleared (AutoStatus then reports success). Manifests given as Object are
// encoded to Raw, as the Maestro client does.
//
// Errors, checked in Maestro's order: adapter.ErrInvalid for a missing or
// malformed name or a namespace other than consumer; adapter.ErrAlreadyExists
// when a work of that name exists, being deleted or not; adapter.ErrInvalid
// for invalid metadata or manifests; adapter.ErrConsumerNotRegistered when
// consumer is not registered. Nothing is stored on error.
func (s *Store) Create(ctx context.Context, consumer string, work *workv1.ManifestWork, read adapter.CreateRead) (*workv1.ManifestWork, error) {
	name := ""
	if work != nil {
		name = work.Name
	}
	if err := s.begin(ctx, VerbCreate, consumer, name); err != nil {
		return nil, err
	}
	if work == nil {
		return nil, callError(VerbCreate, consumer, name, adapter.ErrInvalid, "no work given")
	}
	if err := validateAddress(consumer, work); err != nil {
		return nil, callError(VerbCreate, consumer, name, adapter.ErrInvalid, err.Error())
	}
	w, err := s.newWork(consumer, work)
	if err != nil {
		return nil, callError(VerbCreate, consumer, name, adapter.ErrInvalid, err.Error())
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{consumer, name}
	if old, ok := s.works[k]; ok {
		detail := ""
		if old.DeletionTimestamp != nil {
			detail = "it is being deleted"
		}
		return nil, callError(VerbCreate, consumer, name, adapter.ErrAlreadyExists, detail)
	}
	if err := validateContent(w); err != nil {
		return nil, callError(VerbCreate, consumer, name, adapter.ErrInvalid, err.Error())
	}
	if !s.registered(consumer) {
		return nil, callError(VerbCreate, consumer, name, adapter.ErrConsumerNotRegistered,
			fmt.Sprintf("consumer %q is not registered", consumer))
	}
	w.CreationTimestamp = s.now()
	if s.autoStatus {
		s.reportApplied(w)
	}
	s.works[k] = w
	return w.DeepCopy(), nil
}

// newWork copies the client-owned part of work into a fresh server object of
// generation 1. Manifests are encoded to Raw.
func (s *Store) newWork(consumer string, work *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	in := work.DeepCopy()
	w := &workv1.ManifestWork{}
	w.Name = in.Name
	w.Namespace = consumer
	w.Labels = in.Labels
	w.Annotations = in.Annotations
	w.UID = types.UID(workUID(s.sourceID, consumer, in.Name))
	w.Generation = 1
	w.ResourceVersion = strconv.FormatInt(w.Generation, 10)
	w.Spec = in.Spec
	if err := encodeManifests(w.Spec.Workload.Manifests); err != nil {
		return nil, err
	}
	return w, nil
}
