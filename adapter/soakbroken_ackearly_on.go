//go:build soakbroken_ackearly

package adapter

// soakAckEarly: a deliberately broken build for the soak (see
// soakbroken_ackearly_off.go). Never in a release.
const soakAckEarly = true
