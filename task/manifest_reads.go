package task

import (
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"slices"
)

// Reads is the union of Template.Reads over every template of the manifest,
// without repeats: the paths of the data a render reads, and ok false when
// a render may read more (see Template.Reads).
func (m *Manifest) Reads() (paths [][]string, ok bool) {
	if m.Whole != nil {
		return m.Whole.Reads()
	}
	ok = true
	tmpl.Walk(m.Tree, func(t *tmpl.Template) {
		if !ok {
			return
		}
		ps, tok := t.Reads()
		if !tok {
			ok = false
			return
		}
		for _, p := range ps {
			if !slices.ContainsFunc(paths, func(q []string) bool { return slices.Equal(p, q) }) {
				paths = append(paths, p)
			}
		}
	})
	if !ok {
		return nil, false
	}
	return paths, true
}
