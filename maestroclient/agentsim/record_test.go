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

// TestRedeliveries runs informer notification sequences through one agent's
// classifier: a deletion delivered again after the agent confirmed it is
// Redelivered, and the bundle created again over that copy is not a create
// while the old work was held (OldRedelivered); a deleting work the agent
// had never dropped (a restarted agent's resync) is no Redelivered copy,
// and a create over it still is one.
func TestRedeliveries(t *testing.T) {
	w := func(uid string) *workv1.ManifestWork {
		return &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: uid, UID: types.UID(uid)}}
	}
	type step struct {
		old, cur *workv1.ManifestWork
		want     SpecEvent // Kind and the three flags
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"confirmed, delivered again, created again", []step{
			{nil, w("u1"), SpecEvent{Kind: "add"}},
			{w("u1"), deleting(w("u1")), SpecEvent{Kind: "update"}},
			{deleting(w("u1")), nil, SpecEvent{Kind: "delete"}},
			{nil, deleting(w("u1")), SpecEvent{Kind: "add", Redelivered: true}},
			{deleting(w("u1")), w("u1"), SpecEvent{Kind: "add", OldRedelivered: true}},
			// the new work deleted while held: a create over it is one
			{w("u1"), deleting(w("u1")), SpecEvent{Kind: "update"}},
			{deleting(w("u1")), w("u1"), SpecEvent{Kind: "add", OldPresent: true}},
		}},
		{"a resync's deletion to a new agent is held", []step{
			{nil, deleting(w("u2")), SpecEvent{Kind: "add"}},
			{deleting(w("u2")), w("u2"), SpecEvent{Kind: "add", OldPresent: true}},
		}},
		{"dropped live (not a confirmed deletion), then deleting", []step{
			{nil, w("u3"), SpecEvent{Kind: "add"}},
			{w("u3"), nil, SpecEvent{Kind: "delete"}},
			{nil, deleting(w("u3")), SpecEvent{Kind: "add"}},
		}},
		{"created again after the confirmation, then a late deletion", []step{
			{nil, deleting(w("u4")), SpecEvent{Kind: "add"}},
			{deleting(w("u4")), nil, SpecEvent{Kind: "delete"}},
			{nil, w("u4"), SpecEvent{Kind: "add"}},
			{w("u4"), deleting(w("u4")), SpecEvent{Kind: "update"}},
			{deleting(w("u4")), w("u4"), SpecEvent{Kind: "add", OldPresent: true}},
		}},
		{"a redelivered copy confirmed by a sweep, delivered again", []step{
			{nil, deleting(w("u5")), SpecEvent{Kind: "add"}},
			{deleting(w("u5")), nil, SpecEvent{Kind: "delete"}},
			{nil, deleting(w("u5")), SpecEvent{Kind: "add", Redelivered: true}},
			{deleting(w("u5")), nil, SpecEvent{Kind: "delete"}},
			{nil, deleting(w("u5")), SpecEvent{Kind: "add", Redelivered: true}},
			{deleting(w("u5")), w("u5"), SpecEvent{Kind: "add", OldRedelivered: true}},
		}},
	}
	for _, c := range cases {
		r := newRedeliveries()
		for i, s := range c.steps {
			got := r.classify(s.old, s.cur)
			got.Work = nil
			if got != s.want {
				t.Errorf("%s, step %d: %+v, want %+v", c.name, i+1, got, s.want)
			}
		}
	}
}
