package metrics

import (
	"fmt"

	"errors"
	"github.com/bundle-adapter/bundle-adapter/adapter"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Each List counts once by result, its pages and bundles add up, and the
// duration is the last List's.
func TestViewListed(t *testing.T) {
	m := New()
	m.ViewListed(3, 1200, 2*time.Second, nil)
	m.ViewListed(1, 500, 1500*time.Millisecond, errors.New("unavailable"))
	want := `
# HELP bundle_adapter_view_list_duration_seconds How long the bundle view's last List took, failed or not.
# TYPE bundle_adapter_view_list_duration_seconds gauge
bundle_adapter_view_list_duration_seconds 1.5
# HELP bundle_adapter_view_list_pages_total Pages (Maestro requests) the bundle view's Lists read.
# TYPE bundle_adapter_view_list_pages_total counter
bundle_adapter_view_list_pages_total 4
# HELP bundle_adapter_view_listed_bundles_total Bundles the bundle view's Lists read.
# TYPE bundle_adapter_view_listed_bundles_total counter
bundle_adapter_view_listed_bundles_total 1700
# HELP bundle_adapter_view_lists_total Lists of this source's bundles that filled or refreshed the bundle view (one after every status stream (re)subscription, then one every 3/4 max_age), by result (ok, error).
# TYPE bundle_adapter_view_lists_total counter
bundle_adapter_view_lists_total{result="error"} 1
bundle_adapter_view_lists_total{result="ok"} 1
`
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "bundle_adapter_view_lists_total",
		"bundle_adapter_view_list_pages_total", "bundle_adapter_view_listed_bundles_total", "bundle_adapter_view_list_duration_seconds"); err != nil {
		t.Error(err)
	}
}

// A List's pages are Maestro requests: they count in maestro_requests_total
// (verb list) like every other call, so the requests a restart or a steady
// phase costs include them; a failed List counts its failing request too.
func TestViewListCountsMaestroRequests(t *testing.T) {
	m := New()
	m.ViewListed(3, 1200, time.Second, nil)
	m.ViewListed(1, 500, time.Second, fmt.Errorf("list: %w", adapter.ErrUnavailable))
	want := `
# HELP bundle_adapter_maestro_requests_total Maestro calls by verb and result code.
# TYPE bundle_adapter_maestro_requests_total counter
bundle_adapter_maestro_requests_total{code="ok",verb="list"} 4
bundle_adapter_maestro_requests_total{code="unavailable",verb="list"} 1
`
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "bundle_adapter_maestro_requests_total"); err != nil {
		t.Error(err)
	}
}
