#!/usr/bin/env bash
# hack/agent.sh runs one real Maestro work agent (`maestro agent`) per consumer
# against the local API server of hack/kube.sh and the local Maestro server of
# hack/maestro.sh (whose binary also carries the agent).
#
# Usage: hack/agent.sh <command> [args]
#   start CONSUMER...    register each consumer in Maestro (idempotent), make
#                        sure the agent namespace exists, start its agent and
#                        wait until it is connected; already running => says so;
#                        the previous process's log is kept as agent.log.1
#   stop [CONSUMER...]   stop the named agents (default: every agent started here)
#   status [CONSUMER...] print each agent's state (exit 3 when one is stopped)
#   log CONSUMER         print the agent's log file path
#
# Environment (defaults in brackets):
#   AGENT_RUN_DIR          [/tmp/bundle-adapter-agent]  one sub-directory per
#                          consumer: PID, log, port, source config, TMPDIR
#   AGENT_NAMESPACE        [open-cluster-management-agent]
#   AGENT_BASE_PORT        [18400]  first port tried for an agent's --listen
#   AGENT_KUBECONFIG       [KUBECONFIG printed by hack/kube.sh env]
#   MAESTRO_BROKER_ADDR    [from hack/maestro.sh env: 127.0.0.1:8091]
#   AGENT_START_TIMEOUT    [60]     seconds to wait for an agent to connect
#   AGENT_LOG_LEVEL        [2]      klog -v of the agent
#   AGENT_EVICTION_GRACE_PERIOD [876000h] --appliedmanifestwork-eviction-grace-period.
#                          Every agent on one API server gets the same agent id
#                          (the hash of the broker address), so each one sees the
#                          others' AppliedManifestWorks as orphans and would evict
#                          (delete, with their resources) them after this period;
#                          876000h (100 years) is the bound that disables eviction.
#   AGENT_EXTRA_FLAGS      [empty]  extra flags for every agent (word-split),
#                          e.g. --status-sync-interval=1s
# The variables of hack/maestro.sh (MAESTRO_*_PORT, BUNDLE_ADAPTER_CACHE, ...)
# and hack/kube.sh (KUBE_*) apply too: this script asks those scripts.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "$0")" && pwd)
RUN_DIR=${AGENT_RUN_DIR:-/tmp/bundle-adapter-agent}
NAMESPACE=${AGENT_NAMESPACE:-open-cluster-management-agent}
BASE_PORT=${AGENT_BASE_PORT:-18400}
TIMEOUT=${AGENT_START_TIMEOUT:-60}

die() { echo "agent.sh: error: $*" >&2; exit 1; }
log() { echo "agent.sh: $*" >&2; }

valid_name() {
	[[ "$1" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || die "invalid consumer name '$1'"
}

agent_dir() { echo "${RUN_DIR}/$1"; }

# running prints the agent PID for consumer $1 when it is alive.
running() {
	local f pid
	f=$(agent_dir "$1")/agent.pid
	[[ -f "${f}" ]] || return 1
	pid=$(<"${f}")
	[[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/${pid}/cmdline" 2>/dev/null | grep -q -- "--consumer-name=$1 " || return 1
	echo "${pid}"
}

# env_from runs a script's `env` command and prints the value of one variable.
env_from() {
	local script=$1 name=$2
	"${HACK_DIR}/${script}" env | sed -n "s/^export ${name}=//p"
}

port_taken() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
	# a port handed to an agent that is still starting counts as taken
	grep -qsx "$1" "${RUN_DIR}"/*/port
}

free_port() {
	local port=${BASE_PORT}
	while port_taken "${port}"; do
		port=$((port + 1))
		((port < BASE_PORT + 1000)) || die "no free port in ${BASE_PORT}..$((BASE_PORT + 999))"
	done
	echo "${port}"
}

ensure_namespace() {
	local kubeconfig=$1 kubectl
	kubectl=$(env_from kube.sh KUBECTL)
	[[ -x "${kubectl}" ]] || die "kubectl not found at ${kubectl}; run: hack/kube.sh build"
	if ! "${kubectl}" --kubeconfig="${kubeconfig}" get namespace "${NAMESPACE}" >/dev/null 2>&1; then
		"${kubectl}" --kubeconfig="${kubeconfig}" create namespace "${NAMESPACE}" >/dev/null 2>&1 ||
			"${kubectl}" --kubeconfig="${kubeconfig}" get namespace "${NAMESPACE}" >/dev/null ||
			die "cannot create namespace ${NAMESPACE}"
	fi
}

# connected reports whether the agent's health endpoint answers, it has
# subscribed to the broker and its ManifestWork controller has started.
connected() {
	local dir=$1 port=$2
	curl -fsSk -o /dev/null "https://127.0.0.1:${port}/healthz" 2>/dev/null || return 1
	grep -q 'subscribed to grpc server' "${dir}/agent.log" &&
		grep -q 'Starting worker of controller.*logger="ManifestWorkController"' "${dir}/agent.log"
}

start_one() {
	local consumer=$1 maestro=$2 broker=$3 kubeconfig=$4 pid
	local dir
	dir=$(agent_dir "${consumer}")
	if pid=$(running "${consumer}"); then
		log "agent ${consumer} already running (pid ${pid}, listen $(<"${dir}/port"))"
		return
	fi
	# The previous process's log is kept as agent.log.1 (one generation):
	# a restart is often what is being diagnosed.
	local prev=""
	if [[ -s "${dir}/agent.log" ]]; then
		prev=$(mktemp "${RUN_DIR}/.prev-log.XXXXXX")
		mv "${dir}/agent.log" "${prev}"
	fi
	rm -rf "${dir}"
	mkdir -p "${dir}/tmp"
	chmod 700 "${dir}"
	[[ -z "${prev}" ]] || mv "${prev}" "${dir}/agent.log.1"
	printf 'url: %s\n' "${broker}" >"${dir}/source.yaml"
	local port
	port=$(free_port)
	echo "${port}" >"${dir}/port"
	# shellcheck disable=SC2086 # AGENT_EXTRA_FLAGS is a word list on purpose
	TMPDIR=${dir}/tmp nohup "${maestro}" agent \
		--consumer-name="${consumer}" \
		--workload-source-driver=grpc \
		--workload-source-config="${dir}/source.yaml" \
		--cloudevents-client-id="${consumer}-agent" \
		--kubeconfig="${kubeconfig}" \
		--listen="127.0.0.1:${port}" \
		--namespace="${NAMESPACE}" \
		--appliedmanifestwork-eviction-grace-period="${AGENT_EVICTION_GRACE_PERIOD:-876000h}" \
		--alsologtostderr -v="${AGENT_LOG_LEVEL:-2}" \
		${AGENT_EXTRA_FLAGS:-} \
		</dev/null >"${dir}/agent.log" 2>&1 &
	pid=$!
	echo "${pid}" >"${dir}/agent.pid"
	local deadline=$((SECONDS + TIMEOUT))
	until connected "${dir}" "${port}"; do
		if ! kill -0 "${pid}" 2>/dev/null; then
			tail -n 30 "${dir}/agent.log" >&2 || true
			die "agent ${consumer} exited during start-up, log: ${dir}/agent.log"
		fi
		((SECONDS < deadline)) || die "agent ${consumer} not connected after ${TIMEOUT}s, log: ${dir}/agent.log"
		sleep 0.2
	done
	log "agent ${consumer} started (pid ${pid}, listen 127.0.0.1:${port}), log: ${dir}/agent.log"
}

cmd_start() {
	(($#)) || die "start: need at least one consumer name"
	local c
	for c in "$@"; do valid_name "${c}"; done
	local maestro broker kubeconfig
	maestro=$("${HACK_DIR}/maestro.sh" path)
	[[ -x "${maestro}" ]] || die "no maestro binary at ${maestro}; run: hack/maestro.sh build"
	"${HACK_DIR}/maestro.sh" status >/dev/null || die "maestro is not running; run: hack/maestro.sh start"
	broker=${MAESTRO_BROKER_ADDR:-$(env_from maestro.sh MAESTRO_BROKER_ADDR)}
	kubeconfig=${AGENT_KUBECONFIG:-$(env_from kube.sh KUBECONFIG)}
	[[ -f "${kubeconfig}" ]] || die "no kubeconfig at ${kubeconfig}; run: hack/kube.sh start"
	"${HACK_DIR}/kube.sh" status >/dev/null || die "the API server is not running; run: hack/kube.sh start"
	"${HACK_DIR}/maestro.sh" register "$@"
	ensure_namespace "${kubeconfig}"
	mkdir -p "${RUN_DIR}"
	for c in "$@"; do
		start_one "${c}" "${maestro}" "${broker}" "${kubeconfig}"
	done
}

known_consumers() {
	local d
	for d in "${RUN_DIR}"/*/; do
		[[ -f "${d}agent.pid" ]] && basename "${d}"
	done
	return 0
}

stop_one() {
	local consumer=$1 pid dir
	dir=$(agent_dir "${consumer}")
	if ! pid=$(running "${consumer}"); then
		rm -f "${dir}/agent.pid" "${dir}/port"
		log "agent ${consumer} not running"
		return
	fi
	kill -TERM "${pid}"
	local deadline=$((SECONDS + ${AGENT_STOP_TIMEOUT:-20}))
	while kill -0 "${pid}" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			log "agent ${consumer} (pid ${pid}) ignored SIGTERM, sending SIGKILL"
			kill -KILL "${pid}" 2>/dev/null || true
		fi
		sleep 0.1
	done
	rm -f "${dir}/agent.pid" "${dir}/port"
	log "stopped agent ${consumer} (pid ${pid})"
}

cmd_stop() {
	local consumers=("$@") c
	((${#consumers[@]})) || mapfile -t consumers < <(known_consumers)
	for c in "${consumers[@]}"; do valid_name "${c}"; done
	# agents take ~2 s to shut down: stop them all at once
	local pids=() rc=0 p
	for c in "${consumers[@]}"; do
		stop_one "${c}" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "${p}" || rc=1; done
	return "${rc}"
}

cmd_status() {
	local consumers=("$@") c pid rc=0
	((${#consumers[@]})) || mapfile -t consumers < <(known_consumers)
	((${#consumers[@]})) || { echo "no agents"; return 3; }
	for c in "${consumers[@]}"; do
		if pid=$(running "${c}"); then
			echo "${c}: running pid=${pid} listen=127.0.0.1:$(<"$(agent_dir "${c}")/port") log=$(agent_dir "${c}")/agent.log"
		else
			echo "${c}: stopped"
			rc=3
		fi
	done
	return "${rc}"
}

cmd_log() {
	(($# == 1)) || die "log: need exactly one consumer name"
	valid_name "$1"
	echo "$(agent_dir "$1")/agent.log"
}

main() {
	local cmd=${1:-}
	[[ -n "${cmd}" ]] || die "missing command (start|stop|status|log)"
	shift
	case "${cmd}" in
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	status) cmd_status "$@" ;;
	log) cmd_log "$@" ;;
	*) die "unknown command ${cmd}" ;;
	esac
}

main "$@"
