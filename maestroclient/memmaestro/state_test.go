package memmaestro

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

const fixture = "testdata/state.json"

func readFixture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadString(t *testing.T, s string, opts Options) *Store {
	t.Helper()
	st, err := LoadStateWith(strings.NewReader(s), opts)
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	return st
}

func TestStateRoundTripIsByteStable(t *testing.T) {
	in := readFixture(t)
	s, err := LoadState(bytes.NewReader(in))
	if err != nil {
		t.Fatalf("LoadState(%s): %v", fixture, err)
	}
	var out bytes.Buffer
	if err := s.SaveState(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("SaveState(LoadState(%s)) differs from the file:\n%s", fixture, out.Bytes())
	}
}

func TestLoadStateFixtureBehaves(t *testing.T) {
	clk := newClock()
	s, err := LoadStateWith(bytes.NewReader(readFixture(t)), Options{Clock: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if s.DeleteBehavior() != DeletePending {
		t.Errorf("deleteBehavior = %q, want pending", s.DeleteBehavior())
	}
	old := mustGet(t, s, "cluster-a", "old-job")
	if old.DeletionTimestamp == nil || !old.DeletionTimestamp.UTC().Equal(time.Date(2026, 3, 1, 10, 2, 0, 0, time.UTC)) {
		t.Errorf("old-job deletionTimestamp = %v, want 2026-03-01T10:02:00Z", old.DeletionTimestamp)
	}
	if _, err := s.Update(ctx, "cluster-a", old, work("old-job", "8")); !errors.Is(err, adapter.ErrUnderDeletion) {
		t.Errorf("Update of the loaded deleting work: %v, want ErrUnderDeletion", err)
	}
	if _, err := s.Create(ctx, "cluster-a", work("old-job", "8"), adapter.Unread); !errors.Is(err, adapter.ErrAlreadyExists) {
		t.Errorf("Create over the loaded deleting work: %v, want ErrAlreadyExists", err)
	}
	web := mustGet(t, s, "cluster-b", "web")
	if web.Generation != 2 || web.ResourceVersion != "2" || web.UID != "d5410304-2963-5720-aeb1-6589bb92981d" {
		t.Errorf("web = generation %d rv %q uid %q, want the file's 2, 2, d5410304-...", web.Generation, web.ResourceVersion, web.UID)
	}
	if got := string(web.Spec.Workload.Manifests[1].Raw); !strings.HasPrefix(got, `{"apiVersion":"apps/v1","kind":"Deployment"`) {
		t.Errorf("manifest raw = %s, want compact JSON of the Deployment", got)
	}
	if web.Kind != "" || web.APIVersion != "" {
		t.Errorf("loaded work keeps type meta %q %q; Maestro's Get returns none", web.APIVersion, web.Kind)
	}
	if _, err := s.Create(ctx, "cluster-c", work("x", "1"), adapter.Unread); !errors.Is(err, adapter.ErrConsumerNotRegistered) {
		t.Errorf("Create for a consumer not in the file: %v, want ErrConsumerNotRegistered", err)
	}
	if n := s.ConfirmAll(); n != 1 {
		t.Errorf("ConfirmAll = %d, want 1 (old-job)", n)
	}
	if _, err := s.Get(ctx, "cluster-a", "old-job"); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("Get old-job after ConfirmAll: %v, want ErrNotFound", err)
	}
}

func TestLoadStateImmediateDropsDeletingWorks(t *testing.T) {
	in := strings.Replace(string(readFixture(t)), `"deleteBehavior": "pending"`, `"deleteBehavior": "immediate"`, 1)
	s := loadString(t, in, Options{})
	if s.DeleteBehavior() != DeleteImmediate {
		t.Fatalf("deleteBehavior = %q", s.DeleteBehavior())
	}
	if _, err := s.Get(context.Background(), "cluster-a", "old-job"); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("deleting work under immediate: %v, want ErrNotFound (confirmed)", err)
	}
	mustGet(t, s, "cluster-a", "db")
	mustGet(t, s, "cluster-b", "web")
}

const minimalManifest = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`

func TestLoadStateFillsDefaults(t *testing.T) {
	in := `{"works": [
	  {"metadata": {"name": "w1", "namespace": "c1"}, "spec": {"workload": {"manifests": [` + minimalManifest + `]}}},
	  {"metadata": {"name": "w2", "namespace": "c2", "deletionTimestamp": "2026-02-01T00:00:00Z"},
	   "spec": {"workload": {"manifests": [` + minimalManifest + `]}}}
	]}`
	clk := newClock()
	s := loadString(t, in, Options{Clock: clk.Now, SourceID: "maestro"})
	w1 := mustGet(t, s, "c1", "w1")
	checks := []struct {
		what      string
		got, want any
	}{
		{"uid", string(w1.UID), "2c344c29-c170-5759-91d3-c5fd0a9bd383"},
		{"generation", w1.Generation, int64(1)},
		{"resourceVersion", w1.ResourceVersion, "1"},
		{"creationTimestamp", w1.CreationTimestamp.UTC(), t0.Truncate(time.Second)},
		{"deleteBehavior", s.DeleteBehavior(), DeletePending},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	w2 := mustGet(t, s, "c2", "w2")
	if c := meta.FindStatusCondition(w2.Status.Conditions, workv1.WorkDeleting); c == nil || c.Reason != ReasonWorkDeleting {
		t.Errorf("loaded deleting work lacks the Deleting condition: %+v", w2.Status.Conditions)
	}
	// No consumers in the file: every consumer is registered.
	mustCreate(t, s, "anyone", work("w3", "a"))

	empty := loadString(t, `{}`, Options{})
	if len(empty.Works()) != 0 || empty.DeleteBehavior() != DeletePending {
		t.Errorf("{} loaded %d works, behavior %q", len(empty.Works()), empty.DeleteBehavior())
	}
}

func TestLoadStateErrors(t *testing.T) {
	okWork := func(name, ns string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"` + ns + `"},"spec":{"workload":{"manifests":[` + minimalManifest + `]}}}`
	}
	tests := []struct {
		name string
		in   string
		want []string // substrings of the error
	}{
		{"not JSON", `works:`, []string{"state file"}},
		{"null", `null`, []string{"JSON object"}},
		{"trailing data", `{} {}`, []string{"after the top-level object"}},
		{"unknown top-level fields", `{"works": [], "bar": 1, "foo": 2}`, []string{`"bar"`, `"foo"`}},
		{"bad delete behavior", `{"deleteBehavior": "sometimes"}`, []string{`"sometimes"`}},
		{"works not an array", `{"works": {}}`, []string{"works"}},
		{"consumers not strings", `{"consumers": [1]}`, []string{"consumers"}},
		{"missing namespace", `{"works": [` + okWork("w1", "c1") + `,` + okWork("w2", "") + `]}`,
			[]string{"works[1]", `"w2"`, "metadata.namespace"}},
		{"missing name", `{"works": [` + okWork("", "c1") + `]}`, []string{"works[0]", "metadata.name"}},
		{"unknown field in a work", `{"works": [{"metadata":{"name":"w1","namespace":"c1"},"spec":{"bogus":1}}]}`,
			[]string{"works[0]", `"w1"`, `"bogus"`}},
		{"duplicate", `{"works": [` + okWork("w1", "c1") + `,` + okWork("w1", "c1") + `]}`,
			[]string{"works[1]", "duplicate of works[0]"}},
		{"consumer not listed", `{"consumers": ["c1"], "works": [` + okWork("w1", "c2") + `]}`,
			[]string{"works[0]", `"c2"`, "consumers"}},
		{"invalid manifest", `{"works": [{"metadata":{"name":"w1","namespace":"c1"},"spec":{"workload":{"manifests":[{"kind":"ConfigMap","apiVersion":"v1"}]}}}]}`,
			[]string{"works[0]", "manifests[0]", "name must be set"}},
		{"no manifests", `{"works": [{"metadata":{"name":"w1","namespace":"c1"}}]}`, []string{"works[0]", "must not be empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadState(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("LoadState succeeded with %d works, want an error", len(s.Works()))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestSaveStateShape(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"empty", Options{}, "{\n  \"works\": [],\n  \"deleteBehavior\": \"pending\"\n}\n"},
		{"no consumer registered", Options{Consumers: []string{}, DeleteBehavior: DeleteImmediate},
			"{\n  \"works\": [],\n  \"deleteBehavior\": \"immediate\",\n  \"consumers\": []\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := New(tt.opts).SaveState(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Fatalf("SaveState =\n%s\nwant\n%s", b.String(), tt.want)
			}
			back, err := LoadState(&b)
			if err != nil {
				t.Fatal(err)
			}
			_, err = back.Create(context.Background(), "c1", work("w1", "a"), adapter.Unread)
			if registered := tt.opts.Consumers == nil; registered != (err == nil) {
				t.Errorf("Create after reload: %v, want registered=%v", err, registered)
			}
		})
	}
}

func TestSaveLoadPreservesWorks(t *testing.T) {
	s, clk := newTestStore(Options{AutoStatus: true, Consumers: []string{"c2", "c1"}})
	mustCreate(t, s, "c2", work("b", "1"))
	mustCreate(t, s, "c1", work("z", "1"))
	clk.Advance(time.Minute)
	mustCreate(t, s, "c1", work("a", "1"))
	mustDelete(t, s, "c1", "z")
	if _, err := s.Update(context.Background(), "c2", nil, work("b", "2")); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	if err := s.SaveState(&first); err != nil {
		t.Fatal(err)
	}
	back, err := LoadState(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(back.Works(), s.Works()) {
		t.Fatalf("works after save and load differ:\n%v\n%v", back.Works(), s.Works())
	}
	var second bytes.Buffer
	if err := back.SaveState(&second); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Fatalf("second save differs:\n%s\n%s", first.String(), second.String())
	}
	// Sorted by namespace, then name.
	var order []string
	for _, w := range back.Works() {
		order = append(order, w.Namespace+"/"+w.Name)
	}
	if got, want := strings.Join(order, " "), "c1/a c1/z c2/b"; got != want {
		t.Fatalf("order = %s, want %s", got, want)
	}
}
