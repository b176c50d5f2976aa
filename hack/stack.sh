#!/usr/bin/env bash
# hack/stack.sh brings the whole real stack up or down: Maestro server
# (hack/maestro.sh), a loopback Kubernetes control plane (hack/kube.sh) and one
# real Maestro agent per consumer (hack/agent.sh).
#
# Usage: hack/stack.sh <command> [CONSUMER...]   (default consumer: cluster1)
#   up [CONSUMER...]    build what is missing, start everything, print env
#   down                stop agents, the control plane, then Maestro
#   status              status of every part
#   env                 export lines of every part (eval "$(hack/stack.sh env)")
#
# Environment: those of the three scripts (MAESTRO_*, KUBE_*, AGENT_*), e.g.
# MAESTRO_FRESH=1 / KUBE_FRESH=1 for a clean database / cluster on up.
# MAESTRO_FRESH=1 alone also starts the cluster fresh when neither Maestro nor
# the cluster is running (set KUBE_FRESH=0 to keep the cluster's state).
set -euo pipefail

HACK_DIR=$(cd "$(dirname "$0")" && pwd)

log() { echo "stack.sh: $*" >&2; }

cmd_up() {
	local consumers=("$@")
	((${#consumers[@]})) || consumers=(cluster1)
	local start=${SECONDS}
	"${HACK_DIR}/maestro.sh" build >/dev/null
	"${HACK_DIR}/kube.sh" build >/dev/null
	local built=${SECONDS}
	# A fresh Maestro database orphans whatever the agents applied before:
	# start a stopped cluster fresh too, unless KUBE_FRESH says otherwise.
	if [[ "${MAESTRO_FRESH:-0}" == 1 && -z "${KUBE_FRESH:-}" ]] &&
		! "${HACK_DIR}/kube.sh" status >/dev/null 2>&1 &&
		! "${HACK_DIR}/maestro.sh" status >/dev/null 2>&1; then
		export KUBE_FRESH=1
	fi
	# Maestro and the control plane do not depend on each other: start both
	# at once, then the agents, which need both.
	"${HACK_DIR}/kube.sh" start >/dev/null &
	local kube_pid=$!
	local rc=0
	"${HACK_DIR}/maestro.sh" start >/dev/null || rc=$?
	wait "${kube_pid}" || { log "hack/kube.sh start failed"; exit 1; }
	((rc == 0)) || { log "hack/maestro.sh start failed"; exit 1; }
	"${HACK_DIR}/agent.sh" start "${consumers[@]}"
	log "up in $((SECONDS - built))s (builds $((built - start))s); consumers: ${consumers[*]}"
	cmd_env
}

cmd_down() {
	local rc=0
	"${HACK_DIR}/agent.sh" stop || rc=1
	"${HACK_DIR}/kube.sh" stop || rc=1
	"${HACK_DIR}/maestro.sh" stop || rc=1
	return "${rc}"
}

cmd_status() {
	local rc=0
	echo "== maestro"
	"${HACK_DIR}/maestro.sh" status || rc=3
	echo "== kube"
	"${HACK_DIR}/kube.sh" status || rc=3
	echo "== agents"
	"${HACK_DIR}/agent.sh" status || rc=3
	return "${rc}"
}

cmd_env() {
	"${HACK_DIR}/maestro.sh" env
	"${HACK_DIR}/kube.sh" env
}

main() {
	local cmd=${1:-}
	[[ -n "${cmd}" ]] || { echo "stack.sh: error: missing command (up|down|status|env)" >&2; exit 1; }
	shift
	case "${cmd}" in
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	status) cmd_status "$@" ;;
	env) cmd_env "$@" ;;
	*) echo "stack.sh: error: unknown command ${cmd}" >&2; exit 1 ;;
	esac
}

main "$@"
