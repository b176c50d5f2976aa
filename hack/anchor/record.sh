#!/usr/bin/env bash
# Record hyperfleet-adapter's dry-run answers for the differential test.
#
#   hack/anchor/record.sh [--ref REF | --src DIR | --bin FILE] FIXTURE_DIR...
#
# For each fixture (a folder in the layout of hack/README.md, "Anchor
# fixtures") and each of its situations, in the order create, exists,
# deleting, deleted, reconciled (then any other, by name), runs the anchor's
#   adapter serve --config ... --task-config ... --dry-run-event ...
#     [--dry-run-api-responses ...] [--dry-run-discovery ...]
#     --dry-run-verbose --dry-run-output json
# and writes its answer to situations/<situation>/anchor.json
# (hack/anchor/normalize). A situation with a file "discovery.from" holding
# the name of an earlier situation gets discovery.json written from that
# situation's answer first: the objects the anchor left there.
#
# The anchor binary: --bin names one; --src builds one from a source folder;
# --ref (default $ANCHOR_REF, else 3f746a5) builds one from that commit of the
# git repository $ANCHOR_GIT (default: a clone of $ANCHOR_URL under the
# cache). A fixture with a file "anchor-ref" is recorded with the binary of
# that ref instead (e.g. v0.1.1 for the older format). Binaries are built with
# a plain `go build ./cmd/adapter` (its `make build` stamps a version its own
# examples refuse) and cached by commit in
# ~/.cache/bundle-adapter/anchor/<commit>/adapter.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${ANCHOR_REF:-3f746a5}
src="" bin=""

die() { echo "record: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --ref) ref=$2; shift 2 ;;
    --src) src=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown flag $1" ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || die "name at least one fixture folder"

# build_dir and binary_for: the anchor binary of a ref, built once per commit.
. "$here/build.sh"

default_bin="" default_commit=""
resolve_default() {
  [ -n "$default_bin" ] && return
  if [ -n "$bin" ]; then
    default_bin=$bin default_commit=${ANCHOR_COMMIT:-unknown}
  elif [ -n "$src" ]; then
    default_commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "${ANCHOR_COMMIT:-unknown}")
    default_bin=$cache/$default_commit/adapter
    if [ "$default_commit" = unknown ] || [ ! -x "$default_bin" ]; then
      mkdir -p "$(dirname "$default_bin")"
      build_dir "$src" "$(cd "$(dirname "$default_bin")" && pwd)/adapter"
    fi
  else
    read -r default_bin default_commit < <(binary_for "$ref")
  fi
}

normalize=$(mktemp -d)/normalize
trap 'rm -rf "$(dirname "$normalize")"' EXIT
(cd "$root" && go build -o "$normalize" ./hack/anchor/normalize)

situations_of() {
  local s known="create exists deleting deleted reconciled"
  for s in $known; do [ -d "$1/situations/$s" ] && echo "$s"; done
  for s in $(ls "$1/situations"); do
    case " $known " in *" $s "*) ;; *) [ -d "$1/situations/$s" ] && echo "$s" ;; esac
  done
}

for fx in "$@"; do
  fx=${fx%/}
  [ -f "$fx/adapter-config.yaml" ] && [ -f "$fx/task-config.yaml" ] || die "$fx: needs adapter-config.yaml and task-config.yaml"
  if [ -f "$fx/anchor-ref" ]; then
    read -r abin acommit < <(binary_for "$(tr -d '[:space:]' < "$fx/anchor-ref")")
  else
    resolve_default
    abin=$default_bin acommit=$default_commit
  fi
  for s in $(situations_of "$fx"); do
    d=$fx/situations/$s
    [ -f "$d/event.json" ] || die "$d: no event.json"
    if [ -f "$d/discovery.from" ]; then
      from=$fx/situations/$(tr -d '[:space:]' < "$d/discovery.from")/anchor.json
      [ -f "$from" ] || die "$d/discovery.from: $from is not recorded yet"
      "$normalize" discovery < "$from" > "$d/discovery.json"
    fi
    args=(serve --config "$fx/adapter-config.yaml" --task-config "$fx/task-config.yaml"
      --dry-run-event "$d/event.json" --dry-run-verbose --dry-run-output json)
    [ -f "$d/api-responses.json" ] && args+=(--dry-run-api-responses "$d/api-responses.json")
    [ -f "$d/discovery.json" ] && args+=(--dry-run-discovery "$d/discovery.json")
    if ! "$abin" "${args[@]}" > "$d/trace.tmp" 2> "$d/stderr.tmp"; then
      cat "$d/stderr.tmp" >&2
      rm -f "$d/trace.tmp" "$d/stderr.tmp"
      die "$d: the anchor's dry-run failed"
    fi
    "$normalize" trace "$acommit" < "$d/trace.tmp" > "$d/anchor.json" || { cat "$d/stderr.tmp" >&2; die "$d: no trace"; }
    rm -f "$d/trace.tmp" "$d/stderr.tmp"
    echo "recorded $d ($acommit)"
  done
done
