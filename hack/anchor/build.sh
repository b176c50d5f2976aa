#!/usr/bin/env bash
# Build (or reuse) hyperfleet-adapter, the anchor, at one commit.
#
#   hack/anchor/build.sh [REF]            prints "<binary> <commit>"
#   hack/anchor/build.sh --example REF DIR
#                                         also extracts the anchor's
#                                         charts/examples/maestro at REF into DIR
#
# REF defaults to $ANCHOR_REF, else 3f746a5. The commit comes from the git
# repository $ANCHOR_GIT (default: a bare clone of $ANCHOR_URL under the
# cache, made on first use). The binary is a plain `go build ./cmd/adapter`
# (its `make build` stamps a version its own examples refuse), cached by
# commit in ${BUNDLE_ADAPTER_CACHE:-~/.cache/bundle-adapter}/anchor/<commit>/adapter.
# Used by hack/anchor/record.sh and hack/bench.sh --phases side-by-side.
set -euo pipefail

cache=${BUNDLE_ADAPTER_CACHE:-$HOME/.cache/bundle-adapter}/anchor
ANCHOR_URL=${ANCHOR_URL:-https://github.com/openshift-hyperfleet/hyperfleet-adapter}
ANCHOR_GIT=${ANCHOR_GIT:-$cache/repo.git}

declare -F die >/dev/null || die() { echo "anchor/build: $*" >&2; exit 1; }

# build_dir DIR OUT: a plain go build of the anchor's adapter command.
build_dir() {
  (cd "$1" && CGO_ENABLED=0 GOFLAGS=${GOFLAGS:--mod=mod} go build -o "$2.tmp" ./cmd/adapter) || die "building the anchor in $1 failed"
  mv "$2.tmp" "$2"
}

# commit_of REF: the full commit of REF in $ANCHOR_GIT (cloned on first use).
commit_of() {
  if [ ! -d "$ANCHOR_GIT" ]; then
    mkdir -p "$cache"
    git clone --bare --quiet "$ANCHOR_URL" "$ANCHOR_GIT" || die "cloning $ANCHOR_URL failed; set ANCHOR_GIT to a clone"
  fi
  git -C "$ANCHOR_GIT" rev-parse --verify --quiet "$1^{commit}" || die "$1 is not a commit of $ANCHOR_GIT"
}

# binary_for REF: prints the cached binary of REF (built on first use) and
# its commit, separated by a space.
binary_for() {
  local commit out tmp
  commit=$(commit_of "$1")
  out=$cache/$commit/adapter
  if [ ! -x "$out" ]; then
    tmp=$(mktemp -d)
    git -C "$ANCHOR_GIT" archive "$commit" | tar -x -C "$tmp"
    mkdir -p "$cache/$commit"
    echo "anchor/build: building the anchor at $commit (a minute or two cold)" >&2
    build_dir "$tmp" "$out"
    rm -rf "$tmp"
  fi
  echo "$out $commit"
}

# Sourced (by record.sh): define the functions only.
[[ "${BASH_SOURCE[0]}" != "$0" ]] && return 0

if [ "${1:-}" = --example ]; then
  [ $# -eq 3 ] || die "usage: $0 --example REF DIR"
  commit=$(commit_of "$2")
  mkdir -p "$3"
  git -C "$ANCHOR_GIT" archive "$commit" charts/examples/maestro | tar -x -C "$3" --strip-components=3
  binary_for "$2"
  exit 0
fi
binary_for "${1:-${ANCHOR_REF:-3f746a5}}"
