package memmaestro

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"
)

// State file fields. The file is one JSON object:
//
//	{
//	  "works": [ManifestWork, ...],     // metadata.namespace = consumer; optional
//	  "deleteBehavior": "pending",      // or "immediate"; optional, default pending
//	  "consumers": ["name", ...]        // optional; absent: every consumer registered
//	}
const (
	fieldWorks          = "works"
	fieldDeleteBehavior = "deleteBehavior"
	fieldConsumers      = "consumers"
)

// savedState is the file as SaveState writes it.
type savedState struct {
	Works          []*workv1.ManifestWork `json:"works"`
	DeleteBehavior string                 `json:"deleteBehavior"`
	Consumers      *[]string              `json:"consumers,omitempty"`
}

// LoadState reads a state file (see SaveState) into a new Store with default
// Options otherwise. It is LoadStateWith(r, Options{}).
func LoadState(r io.Reader) (*Store, error) {
	return LoadStateWith(r, Options{})
}

// LoadStateWith reads a state file into a new Store configured by opts; the
// file's deleteBehavior and consumers, when present, replace those of opts.
//
// Each work must carry metadata.name and metadata.namespace (its consumer),
// be valid as Create would require, belong to a registered consumer and be
// unique. Missing server-managed fields are filled in as Create does (uid,
// generation 1, resourceVersion, creationTimestamp now); present ones are
// kept. A work with a deletionTimestamp is pending deletion and gains the
// Deleting condition if it lacks it; under deleteBehavior "immediate" it is
// gone (the agent confirmed) and is not loaded. Unknown fields, at the top
// level or inside a work, are errors that name them.
func LoadStateWith(r io.Reader, opts Options) (*Store, error) {
	top, err := decodeTop(r)
	if err != nil {
		return nil, err
	}
	if raw, ok := top[fieldDeleteBehavior]; ok {
		if err := json.Unmarshal(raw, &opts.DeleteBehavior); err != nil {
			return nil, fmt.Errorf("memmaestro: state file: %s: %w", fieldDeleteBehavior, err)
		}
	}
	if raw, ok := top[fieldConsumers]; ok && !isNull(raw) {
		opts.Consumers = []string{}
		if err := json.Unmarshal(raw, &opts.Consumers); err != nil {
			return nil, fmt.Errorf("memmaestro: state file: %s: %w", fieldConsumers, err)
		}
	}
	s, err := newStore(opts)
	if err != nil {
		return nil, fmt.Errorf("memmaestro: state file: %w", err)
	}
	var works []json.RawMessage
	if raw, ok := top[fieldWorks]; ok {
		if err := json.Unmarshal(raw, &works); err != nil {
			return nil, fmt.Errorf("memmaestro: state file: %s: %w", fieldWorks, err)
		}
	}
	seen := map[key]int{}
	for i, raw := range works {
		w, err := s.loadWork(raw)
		if err != nil {
			return nil, fmt.Errorf("memmaestro: state file: works[%d]%s: %w", i, nameOf(raw), err)
		}
		k := key{w.Namespace, w.Name}
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("memmaestro: state file: works[%d]%s: duplicate of works[%d]", i, nameOf(raw), j)
		}
		seen[k] = i
		if w.DeletionTimestamp != nil && s.deleteBehavior == DeleteImmediate {
			continue
		}
		s.works[k] = w
	}
	return s, nil
}

// decodeTop reads the whole file as one JSON object and rejects unknown
// top-level fields, naming all of them.
func decodeTop(r io.Reader) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(r)
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("memmaestro: state file: %w", err)
	}
	if top == nil {
		return nil, errors.New("memmaestro: state file: want a JSON object, got null")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("memmaestro: state file: data after the top-level object")
	}
	var unknown []string
	for f := range top {
		switch f {
		case fieldWorks, fieldDeleteBehavior, fieldConsumers:
		default:
			unknown = append(unknown, strconv.Quote(f))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("memmaestro: state file: unknown field(s) %s (known: %s, %s, %s)",
			strings.Join(unknown, ", "), fieldWorks, fieldDeleteBehavior, fieldConsumers)
	}
	return top, nil
}

// Adopt loads one work in the state file's format into consumer's
// namespace, checked and completed as LoadStateWith loads the works of a
// file; its metadata.namespace, when set, must be consumer. It is for a
// dry run's discovery file, whose works may name no consumer: the work is
// adopted by the consumer that first reads it. A work of that name already
// in consumer is an error. Adopt records no call.
func (s *Store) Adopt(consumer string, raw json.RawMessage) error {
	w, err := s.loadWorkIn(consumer, raw)
	if err != nil {
		return fmt.Errorf("memmaestro: adopt%s into %q: %w", nameOf(raw), consumer, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{w.Namespace, w.Name}
	if _, dup := s.works[k]; dup {
		return fmt.Errorf("memmaestro: adopt%s into %q: the consumer already holds it", nameOf(raw), consumer)
	}
	if w.DeletionTimestamp != nil && s.deleteBehavior == DeleteImmediate {
		return nil
	}
	s.works[k] = w
	return nil
}

// loadWork decodes, checks and completes one work of the file.
func (s *Store) loadWork(raw json.RawMessage) (*workv1.ManifestWork, error) {
	return s.loadWorkIn("", raw)
}

// loadWorkIn is loadWork for a work of consumer: without a namespace it
// is consumer's ("" requires the namespace).
func (s *Store) loadWorkIn(consumer string, raw json.RawMessage) (*workv1.ManifestWork, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	w := &workv1.ManifestWork{}
	if err := dec.Decode(w); err != nil {
		return nil, err
	}
	if w.Namespace == "" {
		w.Namespace = consumer
	} else if consumer != "" && w.Namespace != consumer {
		return nil, fmt.Errorf("metadata.namespace %q is not the consumer %q", w.Namespace, consumer)
	}
	switch {
	case w.Name == "":
		return nil, errors.New("metadata.name is required")
	case w.Namespace == "":
		return nil, errors.New("metadata.namespace (the consumer) is required")
	case !s.registered(w.Namespace):
		return nil, fmt.Errorf("consumer %q is not in %s", w.Namespace, fieldConsumers)
	}
	if err := validateAddress(w.Namespace, w); err != nil {
		return nil, err
	}
	if err := encodeManifests(w.Spec.Workload.Manifests); err != nil {
		return nil, err
	}
	if err := validateContent(w); err != nil {
		return nil, err
	}
	for i := range w.Spec.Workload.Manifests {
		compactRaw(&w.Spec.Workload.Manifests[i].Raw)
	}
	w.TypeMeta = metav1.TypeMeta{}
	s.complete(w)
	return w, nil
}

// complete fills the server-managed fields a loaded work lacks.
func (s *Store) complete(w *workv1.ManifestWork) {
	if w.UID == "" {
		w.UID = types.UID(workUID(s.sourceID, w.Namespace, w.Name))
	}
	if w.Generation == 0 {
		w.Generation = 1
	}
	if w.ResourceVersion == "" {
		w.ResourceVersion = strconv.FormatInt(w.Generation, 10)
	}
	if w.CreationTimestamp.IsZero() {
		w.CreationTimestamp = s.now()
	}
	if w.DeletionTimestamp != nil && meta.FindStatusCondition(w.Status.Conditions, workv1.WorkDeleting) == nil {
		markDeleting(w, *w.DeletionTimestamp)
	}
}

// nameOf renders ` (name "x")` for the work in raw, or "" when it has none.
func nameOf(raw json.RawMessage) string {
	var w struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &w) != nil || w.Metadata.Name == "" {
		return ""
	}
	return fmt.Sprintf(" (name %q)", w.Metadata.Name)
}

// compactRaw drops the indentation a manifest's raw JSON had in the file.
func compactRaw(raw *[]byte) {
	var b bytes.Buffer
	if json.Compact(&b, *raw) == nil {
		*raw = b.Bytes()
	}
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// SaveState writes the Store as a state file that LoadState reads back to
// the same state: the works, pending deletions included, sorted by namespace
// then name, each with apiVersion and kind; deleteBehavior; and consumers
// when a list is configured (sorted). The output is indented by two spaces
// and ends with a newline; the same state always gives the same bytes.
// Stuck marks, faults and recorded calls are not saved.
func (s *Store) SaveState(w io.Writer) error {
	st := savedState{Works: s.Works(), DeleteBehavior: s.deleteBehavior}
	for _, work := range st.Works {
		work.APIVersion = workv1.GroupVersion.String()
		work.Kind = "ManifestWork"
	}
	if s.consumers != nil {
		names := make([]string, 0, len(s.consumers))
		for c := range s.consumers {
			names = append(names, c)
		}
		sort.Strings(names)
		st.Consumers = &names
	}
	out, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("memmaestro: save state: %w", err)
	}
	if _, err := w.Write(append(out, '\n')); err != nil {
		return fmt.Errorf("memmaestro: save state: %w", err)
	}
	return nil
}
