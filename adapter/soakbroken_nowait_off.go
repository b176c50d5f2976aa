//go:build !soakbroken_nowait

package adapter

// soakNoWait is false in every real build. The soak harness (bench/soak)
// builds a deliberately broken adapter with -tags soakbroken_nowait, where it
// is true: a recreation creates the new bundle right after its delete,
// without waiting for Maestro's 404. The soak's checker must catch that
// adapter.
const soakNoWait = false
