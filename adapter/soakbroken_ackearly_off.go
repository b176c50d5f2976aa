//go:build !soakbroken_ackearly

package adapter

// soakAckEarly is false in every real build. The soak harness (bench/soak)
// builds a deliberately broken adapter with -tags soakbroken_ackearly, where
// it is true: a failed status report (phase post) no longer fails the
// event, so the message is acked before the status was reported. The soak's
// checker must catch that adapter.
const soakAckEarly = false
