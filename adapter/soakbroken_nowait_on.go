//go:build soakbroken_nowait

package adapter

// soakNoWait: a deliberately broken build for the soak (see
// soakbroken_nowait_off.go). Never in a release.
const soakNoWait = true
