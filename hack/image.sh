#!/usr/bin/env bash
# hack/image.sh is `make image`: it builds the Containerfile with podman into
# localhost/bundle-adapter:latest (the chart's default image) and
# localhost/bundle-adapter:<version>, on a machine that reaches no image
# registry. The Containerfile's public base images stay its defaults; this
# script passes base images made here instead:
#
#   builder  localhost/bundle-adapter-builder:<go version>: the machine's Go
#            (/usr/local/go) and a /bin/sh, imported from a tar. The build
#            mounts the machine's module cache read-only (GOPROXY=off, no
#            network) and its Go build cache.
#   base     localhost/bundle-adapter-static:<key>: made from scratch: the
#            host's CA certificates, /etc/passwd and /etc/group with nonroot
#            (65532), /tmp and /home/nonroot; nothing else.
#
# Both are made once (keyed by the Go version, and by the content of the
# base's files), so a second run takes seconds.
#
# Usage: hack/image.sh [build]      make missing bases, build the image, check
#                                   it (non-root, no shell) and print its size
#        hack/image.sh bases        make the local base images only
#        hack/image.sh check        exit 0 when podman can run a container
#                                   here (makes the bases), else say why (exit 1)
#        hack/image.sh name         print the image reference
#        hack/image.sh podman ARGS  podman with this machine's flags
#
# This machine's podman flags are defined once, below (podman_flags,
# limit_flags), and every podman call here and in e2e/image_test.go goes
# through `hack/image.sh podman`: the default runtime (crun) fails with
# "cgroups in hybrid mode not supported", runc with the cgroupfs manager
# works; the sandbox lacks CAP_SYS_RESOURCE, so a container asking for
# rlimits above the current ones does not start, lower ones do.
#
# Environment:
#   IMAGE_REPO               [localhost/bundle-adapter]
#   VERSION, COMMIT          [as the Makefile: git describe / rev-parse]
#   PODMAN_STORAGE_DRIVER    [overlay] measured to work here (rootful podman 4.3,
#                            kernel overlayfs); vfs is the fallback where it does not.
#                            Empty: no flag, for a store first made without one
#                            (podman refuses a driver flag that differs from the
#                            store's: "database configuration mismatch").
#   IMAGE_INSTALL            [1] 0: never apt-get install podman and runc
set -euo pipefail
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."

IMAGE_REPO=${IMAGE_REPO:-localhost/bundle-adapter}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
GOROOT_HOST=$(go env GOROOT)
GO_VERSION=$(go env GOVERSION)
BUILDER_IMAGE=localhost/bundle-adapter-builder:${GO_VERSION}
BASE_REPO=localhost/bundle-adapter-static
NONROOT=65532

# The one place this machine's podman flags live.
podman_flags=(--runtime runc --cgroup-manager cgroupfs --events-backend file)
if [[ -n "${PODMAN_STORAGE_DRIVER-overlay}" ]]; then
	podman_flags+=(--storage-driver "${PODMAN_STORAGE_DRIVER-overlay}")
fi
limit_flags=(--ulimit nofile=1024:4096 --ulimit nproc=4096:4096)

log() { echo "image.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

# step NAME CMD...: runs CMD, saying what it does and how long it took.
step() {
	local name=$1 start=${SECONDS}
	shift
	log "${name} ..."
	"$@"
	log "${name}: done in $((SECONDS - start))s"
}

# pod ARGS: podman with the machine's flags; run, create and build also get
# the lowered rlimits.
pod() {
	local sub=${1:-}
	case "${sub}" in
	run | create | build) shift; podman "${podman_flags[@]}" "${sub}" "${limit_flags[@]}" "$@" ;;
	*) podman "${podman_flags[@]}" "$@" ;;
	esac
}

ensure_podman() {
	local missing=()
	command -v podman >/dev/null || missing+=(podman)
	command -v runc >/dev/null || missing+=(runc)
	((${#missing[@]})) || return 0
	[[ "${IMAGE_INSTALL:-1}" == 1 ]] || die "${missing[*]} not installed (IMAGE_INSTALL=0)"
	command -v apt-get >/dev/null || die "${missing[*]} not installed and no apt-get to install them"
	local sudo=()
	((EUID == 0)) || sudo=(sudo -n)
	# As measured here: with recommends (conmon, network plugins, catatonit).
	apt_install() {
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman runc >/dev/null 2>&1 ||
			{ "${sudo[@]}" apt-get update -q >/dev/null &&
				"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman runc >/dev/null; }
	}
	step "apt-get install podman runc" apt_install
}

have_image() { pod image exists "$1"; }

# workdir: a scratch folder for this run, removed on exit.
WORK=""
workdir() {
	if [[ -z "${WORK}" ]]; then
		WORK=$(mktemp -d)
		trap 'rm -rf "${WORK}"' EXIT
	fi
}

# make_builder imports the machine's Go (GOROOT, at its own path) and a shell
# (dash and the libraries it links: the Containerfile's RUN steps need
# /bin/sh) as the builder image.
make_builder() {
	have_image "${BUILDER_IMAGE}" && { log "builder ${BUILDER_IMAGE}: present"; return; }
	workdir
	local root=${WORK}/builder lib
	mkdir -p "${root}/bin" "${root}/tmp" "${root}/etc" "${root}/root" "${root}/go/pkg/mod" "${root}/src"
	chmod 1777 "${root}/tmp"
	cp -L /bin/sh "${root}/bin/sh"
	for lib in $(ldd /bin/sh | grep -o '/[^ ]*'); do
		mkdir -p "${root}$(dirname "${lib}")"
		cp -L "${lib}" "${root}${lib}"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"${root}/etc/passwd"
	printf 'root:x:0:\n' >"${root}/etc/group"
	tar -c --owner=0 --group=0 --numeric-owner -f "${WORK}/builder.tar" -C "${root}" . -C / "${GOROOT_HOST#/}"
	local env=(PATH="${GOROOT_HOST}/bin:/bin" HOME=/root GOROOT="${GOROOT_HOST}" GOPATH=/go GOMODCACHE=/go/pkg/mod
		GOCACHE=/root/.cache/go-build GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=readonly CGO_ENABLED=0)
	local changes=(--change "WORKDIR /src") kv
	for kv in "${env[@]}"; do changes+=(--change "ENV ${kv}"); done
	pod import --quiet "${changes[@]}" \
		--message "bundle-adapter builder: ${GO_VERSION} from ${GOROOT_HOST} (hack/image.sh)" \
		"${WORK}/builder.tar" "${BUILDER_IMAGE}" >/dev/null
	rm -f "${WORK}/builder.tar"
}

# base_root writes the static base's files under $1: CA certificates,
# passwd and group with root and nonroot, /tmp and nonroot's home.
base_root() {
	local root=$1
	mkdir -p "${root}/etc/ssl/certs" "${root}/tmp" "${root}/home/nonroot"
	chmod 1777 "${root}/tmp"
	chmod 0700 "${root}/home/nonroot"
	cp /etc/ssl/certs/ca-certificates.crt "${root}/etc/ssl/certs/ca-certificates.crt"
	printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n' \
		"${NONROOT}" "${NONROOT}" >"${root}/etc/passwd"
	printf 'root:x:0:\nnonroot:x:%d:\n' "${NONROOT}" >"${root}/etc/group"
}

# base_image prints the static base's reference: keyed by the Go version
# and by the content of its files, so new CA certificates make a new one.
base_image() {
	local f=/etc/ssl/certs/ca-certificates.crt
	[[ -r "${f}" ]] || die "${f} is missing: apt-get install ca-certificates"
	local key
	key=$({ sha256sum "${f}"; declare -f base_root; } | sha256sum | cut -c1-12)
	echo "${BASE_REPO}:${GO_VERSION}-${key}"
}

# make_base makes the static base from scratch: no shell, no package
# manager, nothing to run but what the Containerfile copies in.
make_base() {
	local ref
	ref=$(base_image)
	have_image "${ref}" && { log "base ${ref}: present"; return; }
	workdir
	base_root "${WORK}/base"
	chown -R 0:0 "${WORK}/base"
	chown "${NONROOT}:${NONROOT}" "${WORK}/base/home/nonroot"
	tar -c --numeric-owner -f "${WORK}/base.tar" -C "${WORK}/base" .
	pod import --quiet \
		--change "USER ${NONROOT}:${NONROOT}" \
		--change "ENV PATH=/usr/local/bin" --change "ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt" \
		--message "bundle-adapter static base: CA certificates, nonroot ${NONROOT} (hack/image.sh)" \
		"${WORK}/base.tar" "${ref}" >/dev/null
}

cmd_bases() {
	ensure_podman
	step "builder image ${BUILDER_IMAGE}" make_builder
	step "static base image $(base_image)" make_base
}

# build_image builds the Containerfile on the local bases, offline: the
# module cache is mounted read-only and GOPROXY=off; the Go build cache is
# the machine's, so an unchanged tree builds in seconds.
build_image() {
	local gocache gomodcache
	gocache=$(go env GOCACHE)
	gomodcache=$(go env GOMODCACHE)
	mkdir -p "${gocache}"
	local args=(--network none --pull=never
		--build-arg "BUILDER_IMAGE=${BUILDER_IMAGE}" --build-arg "BASE_IMAGE=$(base_image)"
		--build-arg "VERSION=${VERSION}" --build-arg "COMMIT=${COMMIT}"
		-v "${gomodcache}:/go/pkg/mod:ro" -v "${gocache}:/root/.cache/go-build" -f Containerfile)
	# The build stage first, tagged, so prune keeps it as the next build's
	# layer cache (an unchanged tree then builds in seconds); the image then
	# reuses it.
	pod build "${args[@]}" --target build -t "${IMAGE_REPO}-build-stage:latest" . >&2
	pod build "${args[@]}" -t "${IMAGE_REPO}:latest" -t "${IMAGE_REPO}:${VERSION}" . >&2
}

# verify_image checks what the chart relies on: the image runs as
# 65532:65532 and holds no shell (its file list, from a created container).
verify_image() {
	local ref=${IMAGE_REPO}:latest user cid files
	user=$(pod image inspect --format '{{.Config.User}}' "${ref}")
	[[ "${user}" == "${NONROOT}:${NONROOT}" ]] || die "${ref} runs as '${user}', want ${NONROOT}:${NONROOT}"
	cid=$(pod create "${ref}")
	files=$(pod export "${cid}" | tar -t)
	pod rm "${cid}" >/dev/null
	if grep -E '(^|/)(bin/)?(sh|bash|ash|dash|busybox)$' <<<"${files}"; then
		die "${ref} holds a shell (above)"
	fi
	log "${ref}: user ${user}, $(wc -l <<<"${files}") files, no shell"
}

# prune removes what earlier builds left: the build stage's images (the
# Containerfile labels them) but the current one (tagged
# <repo>-build-stage:latest), and tags of other versions of the image
# (:latest and :<version> stay).
prune() {
	pod image prune --force --filter label=io.bundle-adapter.build-stage=true >/dev/null
	local ref
	for ref in $(pod images --format '{{.Repository}}:{{.Tag}}' --filter "reference=${IMAGE_REPO}"); do
		[[ "${ref}" == "${IMAGE_REPO}:latest" || "${ref}" == "${IMAGE_REPO}:${VERSION}" ]] ||
			pod rmi "${ref}" >/dev/null 2>&1 || true
	done
	pod image prune --force --filter label=org.opencontainers.image.title=bundle-adapter >/dev/null
}

cmd_build() {
	cmd_bases
	step "build ${IMAGE_REPO}:latest (${VERSION})" build_image
	step "prune earlier builds" prune
	step "verify ${IMAGE_REPO}:latest" verify_image
	local size
	size=$(pod image inspect --format '{{.Size}}' "${IMAGE_REPO}:latest")
	log "image ${IMAGE_REPO}:latest and :${VERSION}: $((size / 1000000)) MB (${size} bytes)"
	echo "${IMAGE_REPO}:latest"
}

# cmd_check says whether podman can run a container here: installed, and
# the builder image (made when missing) runs `go version` with the flags.
cmd_check() {
	command -v podman >/dev/null || { echo "podman is not installed (hack/image.sh installs it with apt-get)"; exit 1; }
	command -v runc >/dev/null || { echo "runc is not installed (hack/image.sh installs it with apt-get)"; exit 1; }
	local out
	if ! out=$(IMAGE_INSTALL=0 "${SELF}" bases 2>&1); then
		echo "podman cannot make the base images here: ${out}"
		exit 1
	fi
	if ! out=$(pod run --rm --network none "${BUILDER_IMAGE}" go version 2>&1); then
		echo "podman cannot run a container here: ${out}"
		exit 1
	fi
	echo "podman runs containers here (${out})"
}

main() {
	local cmd=${1:-build}
	(($#)) && shift
	case "${cmd}" in
	build) cmd_build ;;
	bases) cmd_bases ;;
	check) cmd_check ;;
	name) echo "${IMAGE_REPO}:latest" ;;
	podman) pod "$@" ;;
	*) die "unknown command ${cmd} (build|bases|check|name|podman ARGS)" ;;
	esac
}

main "$@"
