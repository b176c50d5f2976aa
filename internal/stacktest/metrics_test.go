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
