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
