#!/usr/bin/env bash
# hack/helm.sh builds the helm CLI from its Go module (helm.sh/helm/v3) and
# caches it by version, like hack/kube.sh does for the Kubernetes binaries.
# The chart in charts/bundle-adapter is linted and rendered with it (Makefile
# targets helm-lint / helm-template, e2e/deploy_test.go).
#
# Usage: hack/helm.sh <command> [args]
#   build          build helm (cached by version), print its path
#   path           print the cached binary path (no build)
#   run ARGS       run the cached helm (build first when missing)
#
# Environment (defaults in brackets):
#   HELM_VERSION            [v3.22.0]  helm.sh/helm/v3 version
#   BUNDLE_ADAPTER_CACHE    [$HOME/.cache/bundle-adapter]
#   HELM_BUILD_PARALLEL     [unset]    go build -p value (default: go's own)
set -euo pipefail

HELM_VERSION=${HELM_VERSION:-v3.22.0}
CACHE_ROOT=${BUNDLE_ADAPTER_CACHE:-${HOME}/.cache/bundle-adapter}/helm
HELM_BIN_DIR=${CACHE_ROOT}/${HELM_VERSION}
HELM_BIN=${HELM_BIN_DIR}/helm

die() { echo "helm.sh: error: $*" >&2; exit 1; }
log() { echo "helm.sh: $*" >&2; }

COLD_BUILD_NAME=helm.sh
# shellcheck source=hack/lib/coldbuild.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/coldbuild.sh"

go_env() {
	export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0
}

cmd_path() { echo "${HELM_BIN}"; }

# build_helm builds helm.sh/helm/v3/cmd/helm from a throwaway wrapper module
# in the cache dir (helm's go.mod has no replace directives, but a wrapper keeps
# the build out of this repository's go.mod and lets us set the same -X flags
# as helm's own Makefile: version, and the Kubernetes version helm lint and
# template assume, taken from the client-go helm requires).
build_helm() {
	[[ -x "${HELM_BIN}" ]] && return
	# One build at a time per version (several developers share the cache):
	# a second caller waits for the first and then finds the binary.
	mkdir -p "${HELM_BIN_DIR}"
	exec 9>"${HELM_BIN_DIR}/.build.lock"
	if ! flock -n 9; then
		log "another helm ${HELM_VERSION} build is running; waiting for it"
		flock 9
	fi
	[[ -x "${HELM_BIN}" ]] && return
	local src=${HELM_BIN_DIR}/src start=${SECONDS}
	rm -rf "${src}"
	mkdir -p "${src}"
	cat >"${src}/go.mod" <<EOF
module bundle-adapter.local/helm-wrapper

go 1.26.0

require helm.sh/helm/v3 ${HELM_VERSION}
EOF
	# The wrapper's one (build-tagged) file names the package it exists for.
	cat >"${src}/tools.go" <<'EOF'
//go:build tools

package tools

import _ "helm.sh/helm/v3/cmd/helm"
EOF
	log "building helm.sh/helm/v3/cmd/helm@${HELM_VERSION} into ${HELM_BIN_DIR} (cold: about 1 min of module downloads, then several minutes of go build on 2 cores; progress every ${COLD_BUILD_TICK}s)"
	(
		cd "${src}"
		go_env
		timed "downloading helm.sh/helm/v3@${HELM_VERSION}" go mod download helm.sh/helm/v3
		# Resolve the full build list (writes go.sum) for the helm command.
		timed "resolving helm's dependencies (go get)" go get "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
		local kv major minor ldflags
		kv=$(go list -m -f '{{.Version}}' k8s.io/client-go)
		kv=${kv#v}
		major=$((${kv%%.*} + 1))
		minor=${kv#*.}
		minor=${minor%%.*}
		ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
		ldflags+=" -X helm.sh/helm/v3/internal/version.metadata="
		ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
		ldflags+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=${major}"
		ldflags+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${minor}"
		ldflags+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=${major}"
		ldflags+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${minor}"
		timed "compiling helm (go build, the long step)" go build -trimpath -ldflags="${ldflags}" ${HELM_BUILD_PARALLEL:+-p "${HELM_BUILD_PARALLEL}"} \
			-o "${HELM_BIN}.tmp" helm.sh/helm/v3/cmd/helm >&2
	) || die "helm build failed (see output above)"
	mv "${HELM_BIN}.tmp" "${HELM_BIN}"
	log "helm ${HELM_VERSION} built in $((SECONDS - start))s"
}

cmd_build() {
	command -v go >/dev/null || die "go not found in PATH"
	build_helm
	echo "${HELM_BIN}"
}

cmd_run() {
	build_helm
	exec "${HELM_BIN}" "$@"
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
