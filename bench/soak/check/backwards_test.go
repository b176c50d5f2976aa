package check

import (
	"slices"
	"testing"
)

// TestMovedBackwards runs the "moved backwards" invariant (issue 41) over
// recorded histories (testdata/backwards/*): generations that only move
// forward pass; a status the API accepted at an older generation after a
// newer one, a bundle updated back to an older generation, a bundle
// deleted and created again at an older one, and a real agent's Job
// created again at an older one each fail, naming both generations and
// their times. issue41 is the sequence of the issue: generation 1 handed
// back on a 503, generation 2 applied and reported, the generation-1
// redelivery on the other replica updating the setup bundle back,
// recreating the Job's bundle at generation 1 and reporting generation 1;
// the drain's resend of generation 2 heals it, and the regression still
// fails the run. An agent's work is named by Maestro's resource id (the
// same when a bundle is created again under its name): a bundle Maestro
// holds at the end is named from maestro.jsonl (issue41), another by its
// cluster label (recreate: the bundle of a cluster deleted later).
// pending is the 5-minute soak's c-000102 (seed 1, 2,000 clusters): a
// stale generation-1 event created the Job's bundle at generation 1 while
// its generation-2 recreation was pending (the old one deleted, the setup
// bundle already at generation 2); a bundle's generation is judged against
// every bundle of its cluster, which one event writes at one generation.
// behind is the 5-minute soak's c-000851 (seed 4): the Job's bundle, still
// at generation 1 while its recreation for generation 2 began (the setup
// bundle already at 2), seen updated at generation 1 once more (a status
// change: same spec, same generation) before its delete: it never moved.
// resync is seed 5's c-001397: the agent restarted while the Job's bundle
// was behind, and its resync added every work again, that one at its own
// generation 1: no move either (a create after a delete still is one).
func TestMovedBackwards(t *testing.T) {
	cases := []struct {
		dir    string
		pass   bool
		value  float64
		detail string
	}{
		{dir: "pass", pass: true, detail: "0 statuses, 0 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: none"},
		{dir: "backwards/clean", pass: true, detail: "0 statuses, 0 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: none"},
		{dir: "backwards/behind", pass: true, detail: "0 statuses, 0 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: none"},
		{dir: "backwards/resync", pass: true, detail: "0 statuses, 0 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: none"},
		{dir: "backwards/status", value: 1, detail: "1 statuses, 0 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: " +
			"status of c1: generation 1 at 05:02:13.250 after generation 2 at 05:02:03.000 (moved back 2 times)"},
		{dir: "backwards/update", value: 1, detail: "0 statuses, 1 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: " +
			"bundle c1-setup (consumer a1): updated to generation 1 at 05:02:13.100 after generation 2 at 05:02:00.002"},
		{dir: "backwards/recreate", value: 1, detail: "0 statuses, 1 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: " +
			"bundle of cluster c1 (consumer a1, work 5c3a0d12-00c1-5b44-a1f0-0000000000c1): created again at generation 1 at 05:02:15.000 after generation 2 at 05:02:02.000"},
		{dir: "backwards/kube", value: 1, detail: "0 statuses, 0 bundles and 1 kube-apiserver objects moved to an older generation after a newer one: " +
			"kube-apiserver: Job default/validate-c1: created again at generation 1 at 05:02:15.001 after generation 2 at 05:02:02.001"},
		{dir: "backwards/issue41", value: 3, detail: "1 statuses, 2 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: " +
			"status of c-000029: generation 1 at 10:03:30.180 after generation 2 at 10:03:24.120; " +
			"bundle c-000029-setup (consumer soak-c5, work 1f0e5a7c-0029-5e7a-9c11-00000000a029): updated to generation 1 at 10:03:30.060 after generation 2 at 10:03:24.030; " +
			"bundle c-000029-validation (consumer soak-c5, work 2b7d9e41-0029-5f3b-8d20-00000000b029): created again at generation 1 at 10:03:30.150 after generation 2 at 10:03:24.030 (c-000029-setup)"},
		{dir: "backwards/pending", value: 1, detail: "0 statuses, 1 bundles and 0 kube-apiserver objects moved to an older generation after a newer one: " +
			"bundle of cluster c1 (consumer a1, work c1-validation): created again at generation 1 at 05:02:39.995 after generation 2 at 05:02:19.745 (work c1-setup)"},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			h, err := Load("testdata/" + c.dir)
			if err != nil {
				t.Fatal(err)
			}
			r := Check(h)
			i := slices.IndexFunc(r.Verdicts, func(v Verdict) bool { return v.Name == "moved backwards" })
			if i < 0 {
				t.Fatalf("no verdict \"moved backwards\" in %+v", r.Verdicts)
			}
			v := r.Verdicts[i]
			if v.Pass != c.pass || v.Value != c.value || v.Limit != "0" || v.Detail != c.detail {
				t.Errorf("verdict %+v\nwant pass %v, value %v, limit 0, detail %q", v, c.pass, c.value, c.detail)
			}
		})
	}
}
