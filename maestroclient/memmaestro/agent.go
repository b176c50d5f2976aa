package memmaestro

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Condition reasons the simulated agent reports with Options.AutoStatus.
const (
	ReasonWorkApplied       = "AppliedManifestWorkComplete"
	ReasonWorkAvailable     = "ResourcesAvailable"
	ReasonManifestApplied   = "AppliedManifestComplete"
	ReasonManifestAvailable = "ResourceAvailable"
)

// Confirm makes the simulated agent confirm the deletion of one work: it
// disappears and Get answers adapter.ErrNotFound. It confirms stuck works
// too (it is the explicit release). It returns an error wrapping
// adapter.ErrNotFound when the work does not exist, and an error when the work
// is not being deleted.
func (s *Store) Confirm(consumer, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{consumer, name}
	w, ok := s.works[k]
	if !ok {
		return fmt.Errorf("memmaestro: confirm %s/%s: %w", consumer, name, adapter.ErrNotFound)
	}
	if w.DeletionTimestamp == nil {
		return fmt.Errorf("memmaestro: confirm %s/%s: the work is not being deleted", consumer, name)
	}
	delete(s.works, k)
	return nil
}

// ConfirmAll confirms every pending deletion except those of works marked
// stuck, and returns how many works it removed.
func (s *Store) ConfirmAll() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, w := range s.works {
		if w.DeletionTimestamp != nil && !s.stuck[k] {
			delete(s.works, k)
			n++
		}
	}
	return n
}

// SetStuck marks (or unmarks) the work consumer/name as stuck: a finalizer
// holds its deletion, so neither ConfirmAll nor DeleteImmediate removes it;
// only Confirm does. The mark belongs to the name, not to one incarnation:
// it may be set before the work exists and survives its re-creation.
func (s *Store) SetStuck(consumer, name string, stuck bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{consumer, name}
	if stuck {
		s.stuck[k] = true
	} else {
		delete(s.stuck, k)
	}
}

// SetStatus replaces the status of a work with a deep copy of status, as the
// agent would report it; use it to model failures such as Applied=False. When
// the work is being deleted, its Deleting condition is kept. It returns an
// error wrapping adapter.ErrNotFound when the work does not exist.
func (s *Store) SetStatus(consumer, name string, status workv1.ManifestWorkStatus) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.works[key{consumer, name}]
	if !ok {
		return fmt.Errorf("memmaestro: set status %s/%s: %w", consumer, name, adapter.ErrNotFound)
	}
	deleting := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkDeleting)
	w.Status = *status.DeepCopy()
	if w.DeletionTimestamp != nil && deleting != nil {
		meta.SetStatusCondition(&w.Status.Conditions, *deleting)
	}
	return nil
}

// reportApplied sets the status a healthy agent reports once it applied the
// current generation of w. Transition times of conditions already True are
// kept.
func (s *Store) reportApplied(w *workv1.ManifestWork) {
	now := s.now()
	gen := w.Generation
	meta.SetStatusCondition(&w.Status.Conditions, trueCondition(workv1.WorkApplied,
		ReasonWorkApplied, "Apply manifest work complete", gen, now))
	meta.SetStatusCondition(&w.Status.Conditions, trueCondition(workv1.WorkAvailable,
		ReasonWorkAvailable, "All resources are available", gen, now))

	old := w.Status.ResourceStatus.Manifests
	manifests := make([]workv1.ManifestCondition, 0, len(w.Spec.Workload.Manifests))
	for i, m := range w.Spec.Workload.Manifests {
		mc := workv1.ManifestCondition{ResourceMeta: resourceMeta(int32(i), m.Raw)}
		for _, prev := range old {
			if prev.ResourceMeta == mc.ResourceMeta {
				mc.Conditions = prev.Conditions
			}
		}
		meta.SetStatusCondition(&mc.Conditions, trueCondition(workv1.ManifestApplied,
			ReasonManifestApplied, "Apply manifest complete", gen, now))
		meta.SetStatusCondition(&mc.Conditions, trueCondition(workv1.ManifestAvailable,
			ReasonManifestAvailable, "Resource is available", gen, now))
		manifests = append(manifests, mc)
	}
	w.Status.ResourceStatus.Manifests = manifests
}

func trueCondition(typ, reason, msg string, gen int64, now metav1.Time) metav1.Condition {
	return metav1.Condition{
		Type:               typ,
		Status:             metav1.ConditionTrue,
		Reason:             reason,
		Message:            msg,
		ObservedGeneration: gen,
		LastTransitionTime: now,
	}
}

// resourceMeta identifies the object of one manifest. raw was validated.
func resourceMeta(ordinal int32, raw []byte) workv1.ManifestResourceMeta {
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(raw, &obj)
	group, version := "", obj.APIVersion
	if i := strings.LastIndex(obj.APIVersion, "/"); i >= 0 {
		group, version = obj.APIVersion[:i], obj.APIVersion[i+1:]
	}
	return workv1.ManifestResourceMeta{
		Ordinal:   ordinal,
		Group:     group,
		Version:   version,
		Kind:      obj.Kind,
		Resource:  pluralize(obj.Kind),
		Name:      obj.Metadata.Name,
		Namespace: obj.Metadata.Namespace,
	}
}

// pluralize guesses the resource name of kind: lower case, English plural.
// The real agent asks the API server's discovery; this is a best effort.
func pluralize(kind string) string {
	r := strings.ToLower(kind)
	switch {
	case r == "":
		return ""
	case r == "endpoints":
		return r
	case strings.HasSuffix(r, "s"), strings.HasSuffix(r, "x"), strings.HasSuffix(r, "z"),
		strings.HasSuffix(r, "ch"), strings.HasSuffix(r, "sh"):
		return r + "es"
	case strings.HasSuffix(r, "y") && len(r) > 1 && !strings.ContainsRune("aeiou", rune(r[len(r)-2])):
		return r[:len(r)-1] + "ies"
	}
	return r + "s"
}
