#!/usr/bin/env bash
# hack/soak.sh is `make soak` (docs/reliability.md, "Soak"): it builds the
# adapter and the soak
# harness (bench/soak), starts a Maestro of its own on a fresh database
# behind a PgBouncer of its own (transaction pooling, as hack/bench.sh's
# pooled setup) and a kube-apiserver of its own for the real agents
# (hack/kube.sh; hack/agent.sh starts them from the harness), runs the soak
# against them and the machine's RabbitMQ, and stops them all. The harness
# prints each fault as it happens and a verdict per invariant; exit 1 when
# one failed.
#
# Environment (defaults in brackets):
#   SOAK_MINUTES   [30]    how long the publisher runs
#   SOAK_CLUSTERS  [2000]  clusters (2 bundles each)
#   SOAK_SEED      [1]     seed of the fault schedule
#   SOAK_BROKEN    [unset] ackearly | nowait: the harness puts a lying proxy
#                          between the adapter and the API (ackearly) or
#                          Maestro's REST API (nowait); the checker must fail
#   SOAK_FAULTS    [all]   comma-separated faults (see bench/soak --help)
#   SOAK_CAPACITY  [1000]  the adapter's events/s capacity; 60% is published
#   SOAK_CONSUMERS [clusters/40, at least 8, at most 100] simulated agents:
#                          at most about 40 clusters (80 bundles) each, for
#                          an agent with more than about 100 bundles can
#                          deadlock with Maestro when it reconnects (after
#                          a Maestro restart) and Maestro then stops
#                          delivering to every agent (docs/reliability.md)
#   SOAK_REAL_AGENTS [1]   real `maestro agent`s, each a consumer of its own
#                          next to the simulated ones; 0: simulated
#                          agents only, no kube-apiserver
#   SOAK_REAL_CLUSTERS [40] clusters on the real agents (at most 45 each:
#                          an agent with more than about 100 bundles can
#                          deadlock with Maestro when it restarts)
#   SOAK_ARGS      [unset] more harness flags
#   SOAK_OUT       [/tmp/bundle-adapter-soak/run-<time>] run directory
#   SOAK_MAESTRO_DB_NAME [maestro_soak]
#   SOAK_MAESTRO_HTTP_PORT [18700] GRPC [18790] BROKER [18791] HEALTH [18783] METRICS [18784]
#   SOAK_PGBOUNCER_PORT [18732]
#   SOAK_KUBE_APISERVER_PORT [18743] ETCD_CLIENT [18779] ETCD_PEER [18780]
#   KCM [18757]; SOAK_AGENT_BASE_PORT [18760] (the real agents' --listen)
#   SOAK_KEEP=1    leave Maestro, PgBouncer and the kube-apiserver running
# PostgreSQL restart (a fault) restarts the machine's PostgreSQL cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "soak.sh: $*" >&2; }

RUN_DIR=/tmp/bundle-adapter-soak
OUT=${SOAK_OUT:-${RUN_DIR}/run-$(date +%Y%m%d-%H%M%S)${SOAK_BROKEN:+-${SOAK_BROKEN}}}
export MAESTRO_RUN_DIR=${RUN_DIR}/maestro
export MAESTRO_DB_NAME=${SOAK_MAESTRO_DB_NAME:-maestro_soak}
export MAESTRO_HTTP_PORT=${SOAK_MAESTRO_HTTP_PORT:-18700}
export MAESTRO_GRPC_PORT=${SOAK_MAESTRO_GRPC_PORT:-18790}
export MAESTRO_BROKER_PORT=${SOAK_MAESTRO_BROKER_PORT:-18791}
export MAESTRO_HEALTH_PORT=${SOAK_MAESTRO_HEALTH_PORT:-18783}
export MAESTRO_METRICS_PORT=${SOAK_MAESTRO_METRICS_PORT:-18784}
export MAESTRO_LOG_LEVEL=${SOAK_MAESTRO_LOG_LEVEL:-1}
export PGBOUNCER_RUN_DIR=${RUN_DIR}/pgbouncer
export PGBOUNCER_PORT=${SOAK_PGBOUNCER_PORT:-18732}
export PGBOUNCER_POOL_MODE=transaction
export PGBOUNCER_SESSION_DB=${MAESTRO_DB_NAME}
export MAESTRO_DB_POOL_PORT=${PGBOUNCER_PORT} MAESTRO_DB_POOL_MODE=transaction
CLUSTERS=${SOAK_CLUSTERS:-2000}
[[ "${CLUSTERS}" =~ ^[1-9][0-9]*$ ]] || { echo "soak.sh: SOAK_CLUSTERS must be a positive number, not ${CLUSTERS}" >&2; exit 2; }
CONSUMERS=${SOAK_CONSUMERS:-$(((CLUSTERS + 39) / 40))}
[[ "${CONSUMERS}" =~ ^[1-9][0-9]*$ ]] || { echo "soak.sh: SOAK_CONSUMERS must be a positive number, not ${CONSUMERS}" >&2; exit 2; }
((CONSUMERS >= 8)) || CONSUMERS=8
((CONSUMERS <= 100)) || CONSUMERS=100
REAL_AGENTS=${SOAK_REAL_AGENTS:-1}
[[ "${REAL_AGENTS}" =~ ^[0-4]$ ]] || { echo "soak.sh: SOAK_REAL_AGENTS must be 0 to 4, not ${REAL_AGENTS}" >&2; exit 2; }
export KUBE_RUN_DIR=${RUN_DIR}/kube KUBE_FRESH=1
export KUBE_APISERVER_PORT=${SOAK_KUBE_APISERVER_PORT:-18743}
export KUBE_ETCD_CLIENT_PORT=${SOAK_KUBE_ETCD_CLIENT_PORT:-18779}
export KUBE_ETCD_PEER_PORT=${SOAK_KUBE_ETCD_PEER_PORT:-18780}
export KUBE_KCM_PORT=${SOAK_KUBE_KCM_PORT:-18757}
export AGENT_RUN_DIR=${RUN_DIR}/agent AGENT_BASE_PORT=${SOAK_AGENT_BASE_PORT:-18760}

case "${SOAK_BROKEN:-}" in
"" | ackearly | nowait) ;;
*) say "SOAK_BROKEN must be ackearly or nowait, not ${SOAK_BROKEN}"; exit 2 ;;
esac

(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null || { say "PostgreSQL is not answering on 127.0.0.1:5432"; exit 1; }
(exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null || { say "RabbitMQ is not answering on 127.0.0.1:5672"; exit 1; }
mkdir -p "${RUN_DIR}" "${OUT}"
hack/maestro.sh build >/dev/null
if ((REAL_AGENTS)); then
	say "building (or reusing) etcd, kube-apiserver and kube-controller-manager for the real agents (hack/kube.sh; minutes when cold)"
	hack/kube.sh build >/dev/null
fi
CGO_ENABLED=0 go build -trimpath -o "${RUN_DIR}/bundle-adapter" ./cmd/bundle-adapter
go build -o "${RUN_DIR}/soak" ./bench/soak

cleanup() {
	# Maestro's and PgBouncer's logs of the run go with its histories.
	cp "${MAESTRO_RUN_DIR}/maestro.log" "${PGBOUNCER_RUN_DIR}/pgbouncer.log" "${OUT}/" 2>/dev/null || true
	local a
	for a in "${AGENT_RUN_DIR}"/*/agent.log "${AGENT_RUN_DIR}"/*/agent.log.1; do
		[[ -f "${a}" ]] && cp "${a}" "${OUT}/agent-$(basename "$(dirname "${a}")").${a##*/agent.}"
	done
	if [[ "${SOAK_KEEP:-0}" == 1 ]]; then
		say "SOAK_KEEP=1: Maestro, PgBouncer and the kube-apiserver left running"
		return
	fi
	hack/agent.sh stop >/dev/null 2>&1 || true
	hack/kube.sh stop >/dev/null 2>&1 || true
	hack/maestro.sh stop >/dev/null 2>&1 || true
	hack/pgbouncer.sh stop >/dev/null 2>&1 || true
	PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -qtA \
		-c "drop database if exists \"${MAESTRO_DB_NAME}\" with (force)" >/dev/null 2>&1 || true
}
# A Maestro, PgBouncer, kube-apiserver or agent left by an interrupted run
# of this script is ours.
hack/agent.sh stop >/dev/null 2>&1 || true
hack/kube.sh stop >/dev/null 2>&1 || true
hack/maestro.sh stop >/dev/null 2>&1 || true
hack/pgbouncer.sh stop >/dev/null 2>&1 || true
trap cleanup EXIT
hack/pgbouncer.sh install
hack/pgbouncer.sh start
MAESTRO_FRESH=1 timeout 180 hack/maestro.sh start >/dev/null || { say "Maestro did not start (log: ${MAESTRO_RUN_DIR}/maestro.log)"; exit 1; }
eval "$(hack/maestro.sh env)"
say "Maestro up at ${MAESTRO_REST_URL} behind PgBouncer :${PGBOUNCER_PORT}; results in ${OUT}"
extra=()
if ((REAL_AGENTS)); then
	say "starting a kube-apiserver of the soak's own for ${REAL_AGENTS} real agent(s) (port ${KUBE_APISERVER_PORT}, logs in ${KUBE_RUN_DIR})"
	timeout 180 hack/kube.sh start >/dev/null || { say "hack/kube.sh start failed (logs in ${KUBE_RUN_DIR})"; exit 1; }
	export MAESTRO_BROKER_ADDR
	# A deletion a real agent loses is healed by restarting it (bench/soak
	# remedy.go) about a minute later: the drain may need that long more.
	extra+=(--drain 3m --real-agents "${REAL_AGENTS}" --real-clusters "${SOAK_REAL_CLUSTERS:-40}" --kubeconfig "$(hack/kube.sh env | sed -n 's/^export KUBECONFIG=//p')")
fi
[[ -z "${SOAK_FAULTS+x}" ]] || extra+=(--faults "${SOAK_FAULTS}")
# shellcheck disable=SC2086
"${RUN_DIR}/soak" \
	--adapter-bin "${RUN_DIR}/bundle-adapter" \
	--hack-dir hack \
	--out "${OUT}" \
	--maestro-rest "${MAESTRO_REST_URL}" \
	--maestro-grpc "${MAESTRO_GRPC_ADDR}" \
	--maestro-broker "${MAESTRO_BROKER_ADDR}" \
	--maestro-metrics "${MAESTRO_METRICS_URL}" \
	--duration "${SOAK_MINUTES:-30}m" \
	--clusters "${SOAK_CLUSTERS:-2000}" \
	--consumers "${CONSUMERS}" \
	--seed "${SOAK_SEED:-1}" \
	--capacity "${SOAK_CAPACITY:-1000}" \
	--broken "${SOAK_BROKEN:-}" \
	"${extra[@]}" \
	${SOAK_ARGS:-}
