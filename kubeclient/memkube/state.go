package memkube

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// savedState is the state file: {"objects": [object, ...]}.
type savedState struct {
	Objects []map[string]any `json:"objects"`
}

// SaveState writes every object as JSON ({"objects": [...]}, sorted by
// kind, namespace and name), for LoadState to continue from (dry-run
// chains).
func (s *Store) SaveState(w io.Writer) error {
	objs := s.Objects()
	st := savedState{Objects: make([]map[string]any, len(objs))}
	for i, o := range objs {
		st.Objects[i] = o.Object
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// LoadState returns a store holding the objects of a state file written by
// SaveState. An unknown top-level field, a kind the store does not serve or
// an object without a name is an error naming it.
func LoadState(r io.Reader, opts Options) (*Store, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var st savedState
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf(`not a memkube state ({"objects": [...]}): %w`, err)
	}
	s := New(opts)
	objs := make([]*unstructured.Unstructured, len(st.Objects))
	for i, o := range st.Objects {
		objs[i] = &unstructured.Unstructured{Object: o}
	}
	if err := s.Seed(objs...); err != nil {
		return nil, err
	}
	return s, nil
}
