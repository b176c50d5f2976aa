package stacktest

import (
	"encoding/json"
	"testing"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// ViewSink is a maestroclient.StatusSink that feeds a bundle view with a
// client's status stream, as the adapter's refresher does, and signals
// each (re)subscription (WaitSubscribed).
type ViewSink struct {
	v          *view.View
	subscribed chan struct{}
}

// NewViewSink feeds v.
func NewViewSink(v *view.View) *ViewSink {
	return &ViewSink{v: v, subscribed: make(chan struct{}, 1)}
}

// Subscribed hands a (re)subscription to the view and signals it.
func (s *ViewSink) Subscribed() {
	s.v.Subscribed()
	select {
	case s.subscribed <- struct{}{}:
	default:
	}
}

// Status hands one status event to the view.
func (s *ViewSink) Status(w *workv1.ManifestWork) { s.v.Status(w) }

// WaitSubscribed fails t unless a (re)subscription comes within timeout.
func (s *ViewSink) WaitSubscribed(t testing.TB, timeout time.Duration) {
	t.Helper()
	select {
	case <-s.subscribed:
	case <-time.After(timeout):
		t.Fatalf("no status stream subscription within %v", timeout)
	}
}

// JSONValue is v as encoding/json decodes its JSON into an any: two
// bundles compare equal as JSON, whatever nil or empty their Go values
// hold where the encoding omits them.
func JSONValue(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
