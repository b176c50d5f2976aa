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

// MaestroWritesAccepted counts creates, updates and deletes answered ok,
// never reads nor refused or failed writes.
func TestMaestroWritesAccepted(t *testing.T) {
	m := Metrics{MaestroRequests: {
		{Labels: `{code="ok",verb="create"}`, Value: 3}, {Labels: `{code="unavailable",verb="create"}`, Value: 2},
		{Labels: `{code="ok",verb="update"}`, Value: 5}, {Labels: `{code="ok",verb="delete"}`, Value: 7},
		{Labels: `{code="already_exists",verb="create"}`, Value: 4}, {Labels: `{code="ok",verb="get"}`, Value: 10},
		{Labels: `{code="ok",verb="get_bundles"}`, Value: 11}, {Labels: `{code="unavailable",verb="update"}`, Value: 13}}}
	if got := m.MaestroWritesAccepted(); got != 15 {
		t.Errorf("MaestroWritesAccepted = %v, want 15", got)
	}
}
