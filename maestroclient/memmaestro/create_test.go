package memmaestro

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func TestCreateSetsServerFields(t *testing.T) {
	s, _ := newTestStore(Options{})
	in := work("web", "a")
	in.Namespace = "cluster-a"
	in.UID = "client-uid"
	in.Generation = 7
	in.ResourceVersion = "99"
	now := metav1.NewTime(t0.Add(-time.Hour))
	in.DeletionTimestamp = &now
	in.Finalizers = []string{"x"}
	in.Status.Conditions = []metav1.Condition{{Type: "Applied", Status: metav1.ConditionTrue}}

	got := mustCreate(t, s, "cluster-a", in)
	// Independent oracle: Python's uuid.uuid5(uuid.NAMESPACE_OID,
	// "memmaestro-manifestworks.work.open-cluster-management.io-cluster-a-web").
	const wantUID = "2747449c-23bc-5a9f-8b88-635ff85b136b"
	checks := []struct {
		what      string
		got, want any
	}{
		{"namespace", got.Namespace, "cluster-a"},
		{"uid", string(got.UID), wantUID},
		{"generation", got.Generation, int64(1)},
		{"resourceVersion", got.ResourceVersion, "1"},
		{"creationTimestamp", got.CreationTimestamp.Time, t0.Truncate(time.Second)},
		{"deletionTimestamp is nil", got.DeletionTimestamp == nil, true},
		{"finalizers", len(got.Finalizers), 0},
		{"conditions", len(got.Status.Conditions), 0},
		{"label", got.Labels["rev"], "a"},
		{"annotation", got.Annotations["note"], "a"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if stored := mustGet(t, s, "cluster-a", "web"); stored.UID != got.UID || stored.Generation != 1 {
		t.Errorf("Get = uid %q generation %d, want what Create returned", stored.UID, stored.Generation)
	}
}

func TestUIDDeterministicAndStableAcrossRecreate(t *testing.T) {
	s, _ := newTestStore(Options{SourceID: "maestro"})
	first := mustCreate(t, s, "c1", work("w1", "a"))
	// Python: uuid.uuid5(uuid.NAMESPACE_OID, "maestro-manifestworks.work.open-cluster-management.io-c1-w1")
	if want := "2c344c29-c170-5759-91d3-c5fd0a9bd383"; string(first.UID) != want {
		t.Fatalf("uid = %s, want %s", first.UID, want)
	}
	mustDelete(t, s, "c1", "w1")
	if err := s.Confirm("c1", "w1"); err != nil {
		t.Fatal(err)
	}
	second := mustCreate(t, s, "c1", work("w1", "b"))
	if second.UID != first.UID {
		t.Errorf("uid after recreate = %s, want %s (Maestro derives it from the name)", second.UID, first.UID)
	}
	other := mustCreate(t, s, "c2", work("w1", "a"))
	if other.UID == first.UID {
		t.Errorf("two consumers got the same uid %s", other.UID)
	}
}

func TestCreateEncodesObjectManifests(t *testing.T) {
	s, _ := newTestStore(Options{})
	in := work("w1", "a")
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind("Secret")
	obj.SetName("s1")
	in.Spec.Workload.Manifests[0].Raw = nil
	in.Spec.Workload.Manifests[0].Object = obj
	got := mustCreate(t, s, "c1", in)
	m := got.Spec.Workload.Manifests[0]
	if m.Object != nil || !strings.Contains(string(m.Raw), `"kind":"Secret"`) {
		t.Fatalf("manifest = raw %s object %v, want it encoded to raw", m.Raw, m.Object)
	}
}

func TestCreateErrors(t *testing.T) {
	tests := []struct {
		name      string
		consumers []string
		setup     func(t *testing.T, s *Store)
		consumer  string
		work      func() *workv1.ManifestWork
		want      error
		wantText  string
	}{
		{
			name:  "exists",
			setup: func(t *testing.T, s *Store) { mustCreate(t, s, "c1", work("w1", "old")) },
			work:  func() *workv1.ManifestWork { return work("w1", "new") },
			want:  adapter.ErrAlreadyExists,
		},
		{
			name: "exists while deleting",
			setup: func(t *testing.T, s *Store) {
				mustCreate(t, s, "c1", work("w1", "old"))
				mustDelete(t, s, "c1", "w1")
			},
			work:     func() *workv1.ManifestWork { return work("w1", "new") },
			want:     adapter.ErrAlreadyExists,
			wantText: "being deleted",
		},
		{
			name:      "unregistered consumer",
			consumers: []string{"c2"},
			work:      func() *workv1.ManifestWork { return work("w1", "a") },
			want:      adapter.ErrConsumerNotRegistered,
			wantText:  `consumer "c1"`,
		},
		{name: "nil work", work: func() *workv1.ManifestWork { return nil }, want: adapter.ErrInvalid},
		{
			name:     "no name",
			work:     func() *workv1.ManifestWork { return work("", "a") },
			want:     adapter.ErrInvalid,
			wantText: "metadata.name",
		},
		{
			name:     "name not a DNS label",
			work:     func() *workv1.ManifestWork { return work("Web_1", "a") },
			want:     adapter.ErrInvalid,
			wantText: "Web_1",
		},
		{
			name:     "empty consumer",
			consumer: "-",
			work:     func() *workv1.ManifestWork { return work("w1", "a") },
			want:     adapter.ErrInvalid,
		},
		{
			name: "namespace differs from consumer",
			work: func() *workv1.ManifestWork {
				w := work("w1", "a")
				w.Namespace = "c2"
				return w
			},
			want:     adapter.ErrInvalid,
			wantText: `"c2" does not match consumer "c1"`,
		},
		{
			name: "no manifests",
			work: func() *workv1.ManifestWork {
				w := work("w1", "a")
				w.Spec.Workload.Manifests = nil
				return w
			},
			want:     adapter.ErrInvalid,
			wantText: "must not be empty",
		},
		{
			name: "manifest without name",
			work: func() *workv1.ManifestWork {
				w := work("w1", "a")
				w.Spec.Workload.Manifests[0] = cm("", "a")
				return w
			},
			want:     adapter.ErrInvalid,
			wantText: "manifests[0]",
		},
		{
			name: "manifest without kind",
			work: func() *workv1.ManifestWork {
				w := work("w1", "a")
				w.Spec.Workload.Manifests[0].Raw = []byte(`{"apiVersion":"v1","metadata":{"name":"x"}}`)
				return w
			},
			want: adapter.ErrInvalid,
		},
		{
			name: "manifest with generateName",
			work: func() *workv1.ManifestWork {
				w := work("w1", "a")
				w.Spec.Workload.Manifests[0].Raw = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","generateName":"x-"}}`)
				return w
			},
			want:     adapter.ErrInvalid,
			wantText: "generateName",
		},
		{
			name: "invalid label",
			work: func() *workv1.ManifestWork {
				w := work("w1", "a")
				w.Labels["bad key!"] = "v"
				return w
			},
			want:     adapter.ErrInvalid,
			wantText: "labels",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(Options{Consumers: tt.consumers})
			if tt.setup != nil {
				tt.setup(t, s)
			}
			consumer := "c1"
			if tt.consumer == "-" {
				consumer = ""
			}
			before := snapshot(t, s)
			got, err := s.Create(context.Background(), consumer, tt.work(), adapter.Unread)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Create: %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not contain %q", err, tt.wantText)
			}
			if got != nil {
				t.Errorf("Create returned a work on error: %v", got)
			}
			if after := snapshot(t, s); after != before {
				t.Errorf("a failed Create changed the state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestConsumers(t *testing.T) {
	tests := []struct {
		name      string
		consumers []string
		consumer  string
		wantOK    bool
	}{
		{name: "no list: anyone", consumers: nil, consumer: "anyone", wantOK: true},
		{name: "listed", consumers: []string{"c1", "c2"}, consumer: "c2", wantOK: true},
		{name: "not listed", consumers: []string{"c1", "c2"}, consumer: "c3"},
		{name: "empty list: nobody", consumers: []string{}, consumer: "c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(Options{Consumers: tt.consumers})
			ctx := context.Background()
			_, err := s.Create(ctx, tt.consumer, work("w1", "a"), adapter.Unread)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				mustGet(t, s, tt.consumer, "w1")
				return
			}
			if !errors.Is(err, adapter.ErrConsumerNotRegistered) || !strings.Contains(err.Error(), tt.consumer) {
				t.Errorf("Create: %v, want ErrConsumerNotRegistered naming %q", err, tt.consumer)
			}
			if _, err := s.Get(ctx, tt.consumer, "w1"); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("Get: %v, want ErrNotFound", err)
			}
			if _, err := s.Update(ctx, tt.consumer, nil, work("w1", "b")); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("Update: %v, want ErrNotFound", err)
			}
			if err := s.Delete(ctx, tt.consumer, "w1"); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("Delete: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestNewRejectsUnknownDeleteBehavior(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "sometimes") {
			t.Fatalf("New did not panic naming the bad behavior: %v", r)
		}
	}()
	New(Options{DeleteBehavior: "sometimes"})
}
