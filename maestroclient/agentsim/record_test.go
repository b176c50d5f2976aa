package agentsim

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"
)

func deleting(w *workv1.ManifestWork) *workv1.ManifestWork {
	now := metav1.Now()
	w.DeletionTimestamp = &now
	return w
}

func TestSpecEvent(t *testing.T) {
	w := func(uid string) *workv1.ManifestWork {
		return &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: "c1-validation", UID: types.UID(uid)}}
	}
	cases := []struct {
		name     string
		old, cur *workv1.ManifestWork
		kind     string
		oldThere bool
	}{
		{"add", nil, w("u1"), "add", false},
		{"update", w("u1"), w("u1"), "update", false},
		{"delete", w("u1"), nil, "delete", false},
		{"new uid while the old is held", w("u1"), w("u2"), "add", true},
		{"deletion requested", w("u1"), deleting(w("u1")), "update", false},
		{"same uid, no longer deleting: created while the old was held", deleting(w("u1")), w("u1"), "add", true},
	}
	for _, c := range cases {
		got := specEvent(c.old, c.cur)
		if got.Kind != c.kind || got.OldPresent != c.oldThere || got.Work == nil {
			t.Errorf("%s: %+v, want kind %s old present %v", c.name, got, c.kind, c.oldThere)
		}
	}
}
