#!/usr/bin/env bash
# hack/test.sh is `make test`: format and vet checks, then every Go test with
# -race. When PostgreSQL answers, it builds (or reuses) the Maestro server,
# starts it on a fresh database, and runs the integration tests against it
# too; otherwise those tests skip and this script says so loudly. Likewise it
# starts (or reuses) the local Kubernetes control plane of hack/kube.sh for
# the kubernetes transport's integration tests (kubeclient), building it only
# when REQUIRE_INTEGRATION=1; it stops only a control plane it started.
#
# Environment:
#   SKIP_INTEGRATION=1   do not start Maestro nor the kube control plane
#   REQUIRE_INTEGRATION=1 fail instead of skipping when Maestro or the kube
#                        control plane cannot run (CI)
#   GO_TEST_FLAGS        extra flags for go test (e.g. -run X, -count=1)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test.sh: $*" >&2; }

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './vendor/*'))
if [[ -n "${unformatted}" ]]; then
	say "gofmt would change:"; echo "${unformatted}" >&2; exit 1
fi
go vet ./...

pg_up() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }

start_maestro() {
	if [[ "${SKIP_INTEGRATION:-0}" == 1 ]]; then
		say "SKIP_INTEGRATION=1: integration tests against Maestro will skip"
		return 1
	fi
	if ! pg_up; then
		say "WARNING: PostgreSQL is not answering on 127.0.0.1:5432: Maestro integration tests will SKIP"
		[[ "${REQUIRE_INTEGRATION:-0}" == 1 ]] && { say "REQUIRE_INTEGRATION=1: failing"; exit 1; }
		return 1
	fi
	hack/maestro.sh build >/dev/null
	MAESTRO_FRESH=1 hack/maestro.sh start >/dev/null
	eval "$(hack/maestro.sh env)"
	stop_on_exit+=('hack/maestro.sh stop')
	say "Maestro up at ${MAESTRO_REST_URL} (gRPC ${MAESTRO_GRPC_ADDR})"
}

stop_on_exit=()
cleanup() {
	local c
	for c in "${stop_on_exit[@]}"; do ${c} >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

kube_built() {
	local bin
	bin=$(hack/kube.sh path)
	[[ -x "${bin}/kube-apiserver" && -x "${bin}/kube-controller-manager" && -x "${bin}/kubectl" ]]
}

# start_kube reuses a running control plane of hack/kube.sh or starts one
# (and stops it on exit). Without built binaries it builds them only when
# REQUIRE_INTEGRATION=1: a cold build takes many minutes.
start_kube() {
	[[ "${SKIP_INTEGRATION:-0}" == 1 ]] && return 1
	if ! hack/kube.sh status >/dev/null 2>&1; then
		if ! kube_built; then
			if [[ "${REQUIRE_INTEGRATION:-0}" != 1 ]]; then
				say "WARNING: kube binaries not built (hack/kube.sh build): kubernetes integration tests will SKIP"
				return 1
			fi
			hack/kube.sh build >/dev/null
		fi
		hack/kube.sh start >/dev/null
		stop_on_exit+=('hack/kube.sh stop')
	fi
	eval "$(hack/kube.sh env)"
	say "kube-apiserver up at ${KUBE_SERVER_URL}"
}

if ! start_maestro && [[ "${REQUIRE_INTEGRATION:-0}" == 1 ]]; then
	say "REQUIRE_INTEGRATION=1 but Maestro was not started"; exit 1
fi
if ! start_kube && [[ "${REQUIRE_INTEGRATION:-0}" == 1 ]]; then
	say "REQUIRE_INTEGRATION=1 but the kube control plane was not started"; exit 1
fi
# The chart tests need helm (built from its Go module and cached, like
# Maestro); they skip without it, except in CI, which builds it first.
if [[ "${REQUIRE_INTEGRATION:-0}" == 1 ]]; then
	hack/helm.sh build >/dev/null
	export REQUIRE_HELM=1
fi
# shellcheck disable=SC2086
go test -race -count=1 ${GO_TEST_FLAGS:-} ./...
