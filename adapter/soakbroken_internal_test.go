package adapter

import "testing"

// The deliberately broken behaviours of the soak's broken builds
// (bench/soak, SOAK_BROKEN) are off in the default build. Run with
// -tags soakbroken_ackearly or soakbroken_nowait, this test fails.
func TestSoakBrokenVariantsOffByDefault(t *testing.T) {
	for name, on := range map[string]bool{"soakbroken_ackearly": soakAckEarly, "soakbroken_nowait": soakNoWait} {
		if on {
			t.Errorf("%s is on: this build acts as the soak's deliberately broken adapter", name)
		}
	}
}
