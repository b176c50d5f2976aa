#!/usr/bin/env bash
# hack/dry-run-demo.sh tells the recreation story of the onprem example with
# nothing else running: each step is one reconcile event through the real
# pipeline (bundle-adapter dry-run) against an in-memory Maestro whose state is
# chained from step to step, and a canned HyperFleet API.
#
#   1. new cluster, generation 1      -> both bundles created
#   2. the same event again           -> unchanged, no Maestro write
#   3. generation 2                   -> the Job bundle is deleted (recreate), pending
#   4. the agent has not confirmed    -> still pending, no second delete, no create
#   5. the agent confirmed (404)      -> the Job bundle is created again
#   6. the cluster is being deleted   -> delete wins; Finalized once Maestro answers 404
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/bundle-adapter}
[[ -x "${BIN}" ]] || go build -o "${BIN}" ./cmd/bundle-adapter
EX=config/examples/onprem
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT

event() { # generation
	jq --argjson g "$1" '.data.generation = $g' "${EX}/dryrun/event.json" >"${work}/event.json"
}
step() { # title, now, extra args...
	local title=$1 now=$2
	shift 2
	echo
	echo "=== ${title}"
	local state=()
	[[ -f "${work}/state.json" ]] && state=(--maestro-state "${work}/state.json")
	"${BIN}" dry-run --config "${EX}/adapter-config.yaml" --task-config "${EX}/task-config.yaml" \
		--event "${work}/event.json" --now "${now}" "${state[@]}" \
		--maestro-state-out "${work}/next.json" --output json "$@" >"${work}/out.json"
	mv "${work}/next.json" "${work}/state.json"
	jq -r '
	  (.bundles[] | "  bundle \(.name): \(.operation)/\(.state) \(.reason)" + (if .pendingSeconds > 0 then " (pending \(.pendingSeconds)s)" else "" end)),
	  "  maestro: " + ([.maestroCalls[] | "\(.verb) \(.name)"] | join(", ")),
	  (.apiCalls[] | select(.method == "PUT") | .body.conditions[] | "  status \(.type)=\(.status) \(.reason)")
	' "${work}/out.json"
}
jq -n '{"GET /api/hyperfleet/v1/clusters/c1": {"status": 200, "body": {"id": "c1", "name": "demo-cluster", "generation": 1}}}' >"${work}/api.json"
A=(--api-responses "${work}/api.json")

event 1
step "1. new cluster c1, generation 1" 2026-11-30T10:00:00Z "${A[@]}"
step "2. the same event again" 2026-11-30T10:00:10Z "${A[@]}"
event 2
jq '.["GET /api/hyperfleet/v1/clusters/c1"].body.generation = 2' "${work}/api.json" >"${work}/a2.json" && mv "${work}/a2.json" "${work}/api.json"
step "3. generation 2: the Job's pod template changed (immutable) -> recreate" 2026-11-30T10:01:00Z "${A[@]}"
step "4. 10s later, the agent has not confirmed the deletion yet" 2026-11-30T10:01:10Z "${A[@]}"
jq '.deleteBehavior = "immediate"' "${work}/state.json" >"${work}/s.json" && mv "${work}/s.json" "${work}/state.json"
step "5. the agent confirmed the deletion (Maestro answers 404)" 2026-11-30T10:01:20Z "${A[@]}"
jq '.deleteBehavior = "pending"' "${work}/state.json" >"${work}/s.json" && mv "${work}/s.json" "${work}/state.json"
jq '.["GET /api/hyperfleet/v1/clusters/c1"].body.deleted_time = "2026-11-30T10:02:00Z"' "${work}/api.json" >"${work}/a2.json" && mv "${work}/a2.json" "${work}/api.json"
step "6. the cluster is being deleted: delete wins" 2026-11-30T10:02:00Z "${A[@]}"
jq '.deleteBehavior = "immediate"' "${work}/state.json" >"${work}/s.json" && mv "${work}/s.json" "${work}/state.json"
step "7. the agent confirmed: Maestro answers 404 -> Finalized" 2026-11-30T10:02:10Z "${A[@]}"
