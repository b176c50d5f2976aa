// Package e2e drives the built bundle-adapter binary against the real local
// stack: Maestro on PostgreSQL, a real Maestro agent on a real
// kube-apiserver, RabbitMQ (and Pub/Sub on pstest), and a recording
// HyperFleet API served by the test. Run it with `make e2e`, which brings the
// stack up with hack/stack.sh; the tests skip when the stack's environment
// (E2E_STACK=1 with MAESTRO_REST_URL, MAESTRO_GRPC_ADDR, KUBECONFIG) is absent.
// TestImage runs the container image (hack/image.sh) instead of the binary,
// as the chart's pod; it also skips where podman cannot run a container
// (REQUIRE_IMAGE=1: fails instead).
package e2e
