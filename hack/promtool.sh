#!/usr/bin/env bash
# hack/promtool.sh builds Prometheus' promtool from its Go module
# (github.com/prometheus/prometheus/cmd/promtool) and caches it by version,
# as hack/helm.sh does for helm. charts/rules_promtool_test.go runs
# `promtool test rules` on the chart's alert rules with it.
#
# Usage: hack/promtool.sh <command> [args]
#   build          build promtool (cached by version), print its path
#   path           print the cached binary path (no build)
#   run ARGS       run the cached promtool (build first when missing)
#
# Environment (defaults in brackets):
#   PROMETHEUS_VERSION      [the github.com/prometheus/prometheus version in
#                            go.mod: the rule parser the Go tests use]
#   BUNDLE_ADAPTER_CACHE    [$HOME/.cache/bundle-adapter]
#   PROMTOOL_BUILD_PARALLEL [unset]    go build -p value (default: go's own)
#   COLD_BUILD_TICK         [30]       seconds between progress lines
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "promtool.sh: error: $*" >&2; exit 1; }
log() { echo "promtool.sh: $*" >&2; }

COLD_BUILD_NAME=promtool.sh
# shellcheck source=hack/lib/coldbuild.sh
source "${ROOT}/hack/lib/coldbuild.sh"

go_mod_version() {
	awk '$1 == "github.com/prometheus/prometheus" { print $2; exit }' "${ROOT}/go.mod"
}

PROMETHEUS_VERSION=${PROMETHEUS_VERSION:-$(go_mod_version)}
[[ -n "${PROMETHEUS_VERSION}" ]] || die "no github.com/prometheus/prometheus version in go.mod; set PROMETHEUS_VERSION"
CACHE_ROOT=${BUNDLE_ADAPTER_CACHE:-${HOME}/.cache/bundle-adapter}/promtool
BIN_DIR=${CACHE_ROOT}/${PROMETHEUS_VERSION}
BIN=${BIN_DIR}/promtool

go_env() {
	export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0
}

cmd_path() { echo "${BIN}"; }

# build_promtool builds cmd/promtool from a throwaway wrapper module in the
# cache dir (kept out of this repository's go.mod), with the version
# promtool --version prints set as Prometheus' Makefile sets it.
build_promtool() {
	[[ -x "${BIN}" ]] && return
	mkdir -p "${BIN_DIR}"
	exec 9>"${BIN_DIR}/.build.lock"
	if ! flock -n 9; then
		log "another promtool ${PROMETHEUS_VERSION} build is running; waiting for it"
		flock 9
	fi
	[[ -x "${BIN}" ]] && return
	local src=${BIN_DIR}/src start=${SECONDS}
	rm -rf "${src}"
	mkdir -p "${src}"
	cat >"${src}/go.mod" <<EOF
module bundle-adapter.local/promtool-wrapper

go 1.26.0

require github.com/prometheus/prometheus ${PROMETHEUS_VERSION}
EOF
	cat >"${src}/tools.go" <<'EOF'
//go:build tools

package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
EOF
	log "building github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION} into ${BIN_DIR} (cold: module downloads, then a few minutes of go build on 2 cores; progress every ${COLD_BUILD_TICK}s)"
	(
		cd "${src}"
		go_env
		timed "downloading github.com/prometheus/prometheus@${PROMETHEUS_VERSION}" go mod download github.com/prometheus/prometheus
		timed "resolving promtool's dependencies (go get)" go get "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION}"
		local ldflags="-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_VERSION}"
		ldflags+=" -X github.com/prometheus/common/version.Branch=module"
		timed "compiling promtool (go build, the long step)" go build -trimpath -tags netgo -ldflags="${ldflags}" \
			${PROMTOOL_BUILD_PARALLEL:+-p "${PROMTOOL_BUILD_PARALLEL}"} -o "${BIN}.tmp" github.com/prometheus/prometheus/cmd/promtool
	) || die "promtool build failed (see output above)"
	mv "${BIN}.tmp" "${BIN}"
	log "promtool ${PROMETHEUS_VERSION} built in $((SECONDS - start))s"
}

cmd_build() {
	command -v go >/dev/null || die "go not found in PATH"
	build_promtool
	echo "${BIN}"
}

cmd_run() {
	build_promtool
	exec "${BIN}" "$@"
}

main() {
	local cmd=${1:-}
	[[ -n "${cmd}" ]] || die "missing command (build|path|run)"
	shift
	case "${cmd}" in
	build) cmd_build "$@" ;;
	path) cmd_path "$@" ;;
	run) cmd_run "$@" ;;
	*) die "unknown command ${cmd}" ;;
	esac
}

main "$@"
