package maestroclient_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// Against the real Maestro: List of a source returns exactly that
// source's bundles, of every consumer (another source's bundles on the
// same consumers are not listed), paging through all of them, each as Get
// returns it; a bundle being deleted is listed, with its
// deletionTimestamp.
func TestListRealMaestro(t *testing.T) {
	s := requireServer(t)
	ctx := t.Context()
	consumers := []string{register(t, s, "list"), register(t, s, "list")}
	ours := newClient(t, s, func(o *maestroclient.Options) { o.SourceID = unique("list-ours") })
	theirs := newClient(t, s, func(o *maestroclient.Options) { o.SourceID = unique("list-theirs") })

	var want []string
	for i := range 23 { // 3 pages of 10
		consumer, name := consumers[i%2], fmt.Sprintf("b%02d", i)
		if _, err := ours.Create(ctx, consumer, bundle(name, "v1"), adapter.Unread); err != nil {
			t.Fatalf("Create: %v", err)
		}
		want = append(want, consumer+"/"+name)
	}
	for i := range 4 { // same consumers, some the same names
		if _, err := theirs.Create(ctx, consumers[i%2], bundle(fmt.Sprintf("b%02d", i), "theirs"), adapter.Unread); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	deleting := consumers[1] + "/b01"
	if err := ours.Delete(ctx, consumers[1], "b01"); err != nil { // no agent: it stays deleting
		t.Fatalf("Delete: %v", err)
	}

	got := map[string]*workv1.ManifestWork{}
	stats, err := ours.List(ctx, 10, func(keys []adapter.BundleKey, works []*workv1.ManifestWork, _ time.Time) error {
		for i, k := range keys {
			if _, dup := got[k.Consumer+"/"+k.Name]; dup {
				t.Errorf("%v listed twice", k)
			}
			got[k.Consumer+"/"+k.Name] = works[i]
		}
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	listed := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Fatalf("listed %v,\nwant %v", listed, want)
	}
	if stats.Pages != 3 || stats.Bundles != 23 || stats.Skipped != 0 {
		t.Errorf("stats %+v, want 3 pages, 23 bundles, none skipped", stats)
	}
	for key, w := range got {
		if (w.DeletionTimestamp != nil) != (key == deleting) {
			t.Errorf("%s: deletionTimestamp %v", key, w.DeletionTimestamp)
		}
		if w.Spec.Workload.Manifests == nil || len(w.Spec.Workload.Manifests) != 1 || w.Generation == 0 {
			t.Errorf("%s: listed without its manifest or version: %+v", key, w)
		}
	}
	// Each listed bundle is what Get returns.
	for _, key := range []string{want[0], deleting} {
		consumer, name := key[:len(consumers[0])], key[len(consumers[0])+1:]
		w, err := ours.Get(ctx, consumer, name)
		if err != nil {
			t.Fatalf("Get %s: %v", key, err)
		}
		if w.UID != got[key].UID || w.Generation != got[key].Generation || w.Name != got[key].Name {
			t.Errorf("%s: listed uid %s generation %d, Get uid %s generation %d", key, got[key].UID, got[key].Generation, w.UID, w.Generation)
		}
	}
}
