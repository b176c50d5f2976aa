package stacktest

import "testing"

// MaestroCreates counts only the creates Maestro accepted,
// MaestroCreatesRefused only those refused as already existing.
func TestMaestroCreates(t *testing.T) {
	m := Metrics{MaestroRequests: {
		{Labels: `{code="ok",verb="create"}`, Value: 3}, {Labels: `{code="error",verb="create"}`, Value: 2},
		{Labels: `{code="already_exists",verb="create"}`, Value: 4}, {Labels: `{code="ok",verb="get"}`, Value: 10}}}
	if got := m.MaestroCreates(); got != 3 {
		t.Errorf("MaestroCreates = %v, want 3", got)
	}
	if got := m.MaestroCreatesRefused(); got != 4 {
		t.Errorf("MaestroCreatesRefused = %v, want 4", got)
	}
}

// MaestroWritesRefused counts creates, updates and deletes answered
// unavailable, and no read, no other code; SourceClients reads both gauges.
func TestMaestroWritesRefused(t *testing.T) {
	m := Metrics{MaestroRequests: {
		{Labels: `{code="ok",verb="create"}`, Value: 3}, {Labels: `{code="unavailable",verb="create"}`, Value: 2},
		{Labels: `{code="ok",verb="update"}`, Value: 5}, {Labels: `{code="unavailable",verb="delete"}`, Value: 7},
		{Labels: `{code="already_exists",verb="create"}`, Value: 4}, {Labels: `{code="unavailable",verb="get"}`, Value: 10},
		{Labels: `{code="unavailable",verb="get_bundles"}`, Value: 11}, {Labels: `{code="unavailable",verb="update"}`, Value: 13}},
		"bundle_adapter_maestro_source_clients_connected": {{Value: 3}}, "bundle_adapter_maestro_source_clients": {{Value: 4}}}
	if got := m.MaestroWritesRefused(); got != 22 {
		t.Errorf("MaestroWritesRefused = %v, want 22", got)
	}
	if c, n := m.SourceClients(); c != 3 || n != 4 {
		t.Errorf("SourceClients = %v of %v, want 3 of 4", c, n)
	}
}

// MaestroSpecQueue reads the event-controller queue only (not the status
// queue beside it) and Maestro's process start; metrics without that queue
// (an adapter's, or a Maestro not yet serving) are not a queue at all.
func TestMaestroSpecQueue(t *testing.T) {
	m := Metrics{
		"workqueue_adds_total": {{Labels: `{name="event-controller",queue_name="event-controller"}`, Value: 4000},
			{Labels: `{name="status-event-controller",queue_name="status-event-controller"}`, Value: 1402}},
		"workqueue_depth": {{Labels: `{name="event-controller",queue_name="event-controller"}`, Value: 2626},
			{Labels: `{name="status-event-controller",queue_name="status-event-controller"}`, Value: 1}},
		"workqueue_work_duration_seconds_count": {{Labels: `{name="event-controller",queue_name="event-controller"}`, Value: 1374},
			{Labels: `{name="status-event-controller",queue_name="status-event-controller"}`, Value: 1400}},
		"process_start_time_seconds": {{Value: 1.79661468496e+09}},
	}
	want := MaestroSpecQueue{Added: 4000, Done: 1374, Depth: 2626, Start: 1.79661468496e+09}
	if got, ok := m.MaestroSpecQueue(); !ok || got != want {
		t.Errorf("MaestroSpecQueue = %+v, %v; want %+v, true", got, ok, want)
	}
	status := Metrics{"workqueue_depth": {{Labels: `{name="status-event-controller",queue_name="status-event-controller"}`, Value: 1}}}
	for name, m := range map[string]Metrics{"none": {}, "status queue only": status} {
		if got, ok := m.MaestroSpecQueue(); ok {
			t.Errorf("%s: MaestroSpecQueue = %+v, true; want false", name, got)
		}
	}
}
