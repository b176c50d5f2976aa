package e2e

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// TestLeftoverJob pins what the replica tests accept as a Job the agent
// took over from the old bundle (leftoverJob): the shape the CI run of
// 2026-12-07 showed, and each way a Job the agent made for the new bundle,
// or one it failed to update for another reason, differs from it.
func TestLeftoverJob(t *testing.T) {
	at := func(s string) metav1.Time {
		tm, err := time.Parse(time.TimeOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return metav1.NewTime(tm)
	}
	immutable := `Failed to apply manifest: Job.batch "validate-r1" is invalid: spec.template: Invalid value: {}: field is immutable`
	bundle := func(created string, applied metav1.ConditionStatus, msg string) *workv1.ManifestWork {
		w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: "r1-validation"}}
		if created != "" {
			w.CreationTimestamp = at(created)
		}
		w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{
			ResourceMeta: workv1.ManifestResourceMeta{Kind: "Job", Name: "validate-r1"},
			Conditions:   []metav1.Condition{{Type: workv1.ManifestApplied, Status: applied, Message: msg}},
		}}
		return w
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "validate-r1", CreationTimestamp: at("05:52:57")}}
	for _, tc := range []struct {
		name  string
		work  *workv1.ManifestWork
		wantE string // "" when the Job is a leftover
	}{
		{"the CI run's shape: older job, immutable template", bundle("05:53:00", metav1.ConditionFalse, immutable), ""},
		{"job created in the bundle's second", bundle("05:52:57", metav1.ConditionFalse, immutable), ""},
		{"job newer than the bundle", bundle("05:52:56", metav1.ConditionFalse, immutable), "newer than the new bundle"},
		{"bundle without a creation time", bundle("", metav1.ConditionFalse, immutable), "no creation time"},
		{"job applied", bundle("05:53:00", metav1.ConditionTrue, "Apply manifest complete"), "immutable field"},
		{"another apply failure", bundle("05:53:00", metav1.ConditionFalse, "forbidden"), "immutable field"},
		{"immutable, but for another manifest", func() *workv1.ManifestWork {
			w := bundle("05:53:00", metav1.ConditionFalse, immutable)
			w.Status.ResourceStatus.Manifests[0].ResourceMeta.Name = "validate-other"
			return w
		}(), "immutable field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := leftoverJob(tc.work, job)
			switch {
			case tc.wantE == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.wantE != "" && (err == nil || !strings.Contains(err.Error(), tc.wantE)):
				t.Errorf("got %v, want an error containing %q", err, tc.wantE)
			}
		})
	}
}
