#!/usr/bin/env bash
# hack/e2e.sh is `make e2e`: where podman can run a container it builds the
# image (hack/image.sh; e2e/image_test.go runs it), then it brings the real stack up (Maestro on
# PostgreSQL, etcd + kube-apiserver + kube-controller-manager, one real
# Maestro agent for the e2e consumer) and builds helm (hack/helm.sh, for the
# chart's server-side dry run and its install), where it can a node that runs
# pods (hack/node.sh), runs the end-to-end tests against it with
# RabbitMQ, and takes the stack down again (KEEP_STACK=1 keeps it).
# Binaries are built once and cached by version (see hack/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
CONSUMER=${E2E_CONSUMER:-e2e-cluster}
start=$SECONDS
# helm renders the chart for e2e/deploy_test.go (built once, cached by version).
hack/helm.sh build >/dev/null
echo "e2e.sh: helm ready in $((SECONDS - start))s"
# The image for e2e/image_test.go, before the stack is up. Under CI
# (.ci/run sets REQUIRE_IMAGE=1 once podman works) a machine where podman
# cannot run fails here; elsewhere the test skips and says why.
start=$SECONDS
if why=$(hack/image.sh check 2>&1); then
	hack/image.sh build >/dev/null
	echo "e2e.sh: image $(hack/image.sh name) built in $((SECONDS - start))s"
elif [[ "${REQUIRE_IMAGE:-0}" == 1 ]]; then
	echo "e2e.sh: REQUIRE_IMAGE=1 but ${why}" >&2
	exit 1
else
	echo "e2e.sh: no image (TestImage skips): ${why}"
fi
start=$SECONDS
MAESTRO_FRESH=${MAESTRO_FRESH:-1} hack/stack.sh up "${CONSUMER}" >/dev/null
eval "$(hack/stack.sh env)"
export E2E_CONSUMER=${CONSUMER} E2E_STACK=1
echo "e2e.sh: stack up in $((SECONDS - start))s"
if [[ "${KEEP_STACK:-0}" != 1 ]]; then
	trap 'hack/node.sh down >/dev/null 2>&1 || true; hack/stack.sh down >/dev/null 2>&1 || true' EXIT
fi
# The node that runs the chart's pod (hack/node.sh: a kubelet and scheduler
# beside the stack's API server; e2e/pod*_test.go). Under CI (.ci/run sets
# REQUIRE_NODE=1) a node that cannot come up fails here; elsewhere those
# tests skip and say why. E2E_POD_KUBECONFIG names another cluster instead.
# Opt-in outside CI (E2E_NODE=1 or REQUIRE_NODE=1): the node needs root and
# changes the host (sysctls, iptables) until `hack/node.sh down`.
start=$SECONDS
if [[ -n "${E2E_POD_KUBECONFIG:-}" ]]; then
	echo "e2e.sh: pods run on the cluster of E2E_POD_KUBECONFIG"
elif [[ "${E2E_NODE:-0}" != 1 && "${REQUIRE_NODE:-0}" != 1 ]]; then
	echo "e2e.sh: no node (E2E_NODE=1 brings one up; the pod tests skip)"
elif why=$(hack/node.sh build 2>&1 >/dev/null && hack/node.sh up 2>&1 >/dev/null); then
	echo "e2e.sh: node up in $((SECONDS - start))s (built or reused from the cache)"
elif [[ "${REQUIRE_NODE:-0}" == 1 ]]; then
	echo "e2e.sh: REQUIRE_NODE=1 but the node did not come up: $(tail -n 20 <<<"${why}")" >&2
	exit 1
else
	echo "e2e.sh: no node (the pod tests skip): $(tail -n 5 <<<"${why}")"
fi
# shellcheck disable=SC2086
go test -race -count=1 -timeout 30m ${E2E_FLAGS:-} ./e2e/...
