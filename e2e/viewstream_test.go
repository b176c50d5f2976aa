package e2e

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// The round after a create on the real agent (issue 47): a bundle created
// through the view gets its entry from the agent's status on the stream,
// without a read, and that entry is what a read returns: the stream's
// bundle, normalized as maestroclient TestStreamCarriesTheReadSaveTwoFields
// found with the simulated agent, equals Maestro's answer once the
// agent's reports settle (the entry and the read are taken with no stream
// event between them, or compared again).
func TestStreamEntryIsTheRead(t *testing.T) {
	st := requireStack(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	v := view.New(view.Options{MaxAge: time.Minute})
	sink := stacktest.NewViewSink(v)
	name := unique("e2e-stream-")
	seen := &streamLog{next: sink, name: name}
	mc, err := maestroclient.New(ctx, maestroclient.Options{GRPCAddress: st.grpcAddr, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: st.restURL, HTTP: maestroclient.TLSOptions{Insecure: true}, SourceID: unique("e2e-stream-"), Status: seen})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	sink.WaitSubscribed(t, 30*time.Second)
	m := view.Maestro(mc, v)
	t.Cleanup(func() { _ = mc.Delete(context.Background(), st.consumer, name) })
	if _, err := m.Create(ctx, st.consumer, streamBundle(name), adapter.ReadAbsent); err != nil {
		t.Fatal(err)
	}
	var first *workv1.ManifestWork
	eventually(t, 60*time.Second, "the agent's status making the entry", func() error {
		var ok bool
		if first, ok = v.Lookup(st.consumer, name); !ok {
			return fmt.Errorf("no entry yet (%s; %d creates pending)", seen, v.PendingCreates())
		}
		return nil
	})
	if len(first.Status.Conditions) == 0 || first.Annotations[bundles.WriteIDAnnotation] == "" {
		t.Errorf("the first entry has conditions %v and write id %q: not made from the agent's status of this create",
			first.Status.Conditions, first.Annotations[bundles.WriteIDAnnotation])
	}
	var last string
	attempts := 0
	err = until(60*time.Second, func() error {
		attempts++
		before, ok := v.Lookup(st.consumer, name)
		read, err := mc.Get(ctx, st.consumer, name)
		after, ok2 := v.Lookup(st.consumer, name)
		if err != nil || !ok || !ok2 {
			return fmt.Errorf("entry %v/%v, read %v", ok, ok2, err)
		}
		e, r, a := stacktest.JSONValue(t, before), stacktest.JSONValue(t, read), stacktest.JSONValue(t, after)
		if !reflect.DeepEqual(e, a) {
			return errors.New("the stream changed the entry during the read")
		}
		if !reflect.DeepEqual(e, r) {
			last = fmt.Sprintf("entry %v\nread  %v", e, r)
			return errors.New("the entry differs from the read")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the entry made from the real agent's statuses never equalled a read: %v\n%s", err, last)
	}
	t.Logf("the entry equalled a read at attempt %d; first entry's conditions: %v", attempts, conditionTypes(first))
}

// streamBundle is a one-ConfigMap bundle with the adapter's fingerprint
// annotation and a feedback rule, so the real agent reports conditions and
// status feedback.
func streamBundle(name string) *workv1.ManifestWork {
	cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"},"data":{"value":"v1"}}`, name)
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"test": "e2e-stream"},
			Annotations: map[string]string{bundles.FingerprintAnnotation: "fp-1"}},
		Spec: workv1.ManifestWorkSpec{
			Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: []byte(cm)}}}},
			ManifestConfigs: []workv1.ManifestConfigOption{{
				ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Name: name, Namespace: "default"},
				FeedbackRules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType,
					JsonPaths: []workv1.JsonPath{{Name: "value", Path: ".data.value"}}}},
			}},
		},
	}
}

// conditionTypes names a bundle's conditions as type=status.
func conditionTypes(w *workv1.ManifestWork) []string {
	var out []string
	for _, c := range w.Status.Conditions {
		out = append(out, c.Type+"="+string(c.Status))
	}
	return out
}

// streamLog hands the stream on to next and keeps what it carried of one
// bundle, and how many (re)subscriptions came, so that a missing entry
// says whether the status never came or came and made nothing (the
// second CI rehearsal of 2026-12-08: Maestro sent both statuses to this
// subscriber, yet no entry came in 60 s).
type streamLog struct {
	next       maestroclient.StatusSink
	name       string
	mu         sync.Mutex
	subscribed int
	statuses   []string
}

func (s *streamLog) Subscribed() {
	s.mu.Lock()
	s.subscribed++
	s.mu.Unlock()
	s.next.Subscribed()
}

func (s *streamLog) Status(w *workv1.ManifestWork) {
	if w != nil && w.Name == s.name {
		s.mu.Lock()
		s.statuses = append(s.statuses, fmt.Sprintf("write id %q generation %d conditions %v at %s",
			w.Annotations[bundles.WriteIDAnnotation], w.Generation, conditionTypes(w), time.Now().Format("15:04:05.000")))
		s.mu.Unlock()
	}
	s.next.Status(w)
}

func (s *streamLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%d (re)subscriptions; statuses of the bundle: %v", s.subscribed, s.statuses)
}
