#!/usr/bin/env bash
# hack/bench.sh is the load harness of `make bench` (see bench/README.md).
#
# It builds the adapter binary, the harness (bench/load) and the report
# (bench/report), then for each size and each Maestro setup starts a Maestro
# server of its own on a fresh PostgreSQL database and on ports of its own
# (so a Maestro already serving on the default ports is left alone), runs the
# harness against it, RabbitMQ and the adapter binary, and stops that Maestro
# and drops its database. The setups: stock (Maestro on PostgreSQL) and
# pooled (Maestro behind a PgBouncer of its own, transaction pooling:
# hack/pgbouncer.sh). Last, bench/report writes bench/results.json, .md and
# .svg and exits 1 naming each missed floor. Everything listens on loopback.
#
# Usage: hack/bench.sh [--clusters 1000,10000,50000] [--modes stock,pooled] [--phases base] [--quick] [harness flags]
#        hack/bench.sh --quick                  200 clusters, short phases: for development
#        hack/bench.sh --phases fleet           only issue 34's phases (creates to one consumer,
#                                               steady, restart, two replicas) after create and
#                                               unchanged, at 1,000 and 10,000 clusters, pooled
#                                               Maestro, --view-max-age 2m (each a default: the
#                                               flags given win); --phases all runs every phase
#        hack/bench.sh --phases side-by-side    issue 47's side-by-side with hyperfleet-adapter (the
#                                               anchor, built by hack/anchor/build.sh): each adapter on
#                                               the anchor's charts/examples/maestro config unchanged,
#                                               on a fresh Maestro of its own, 1,000 clusters, pooled,
#                                               with no agent and with a simulated one
#                                               (BENCH_SIDE_AGENTS); then the comparison
#                                               against the floors
#        hack/bench.sh --help                   the harness flags
#
# Environment (defaults in brackets):
#   BENCH_RUN_DIR           [/tmp/bundle-adapter-bench] binaries, Maestro's and
#                           PgBouncer's run dirs, each run's results, configs
#                           and adapter log
#   BENCH_MAESTRO_DB_NAME   [maestro_bundle_adapter_bench]
#   BENCH_MAESTRO_HTTP_PORT [18100]  BENCH_MAESTRO_GRPC_PORT    [18190]
#   BENCH_MAESTRO_BROKER_PORT [18191] BENCH_MAESTRO_HEALTH_PORT [18183]
#   BENCH_MAESTRO_METRICS_PORT [18184]
#   BENCH_PGBOUNCER_PORT    [18432]
#   BENCH_PGBOUNCER_POOL_MODE [transaction] (session: see bench/README.md)
#   BENCH_MAESTRO_LOG_LEVEL [1]      klog -v of the server
#   BENCH_RABBITMQ_URL      [amqp://guest:guest@127.0.0.1:5672/]
#   BENCH_ADAPTER_BIN       [built from this tree] an adapter binary to measure
#                           instead (e.g. one built from another commit, for a
#                           before/after comparison)
#   BENCH_OUT               [bench] folder of results.json, .md and .svg
#   ANCHOR_REF              [3f746a5] the anchor's commit for --phases side-by-side
#   BENCH_SIDE_AGENTS       [none,simulated] --phases side-by-side: run with no
#                           agent (creates floor), then with one simulated agent
#                           (the round after the creates learned from its stream)
#   ANCHOR_GIT              a git clone of hyperfleet-adapter (default: cloned
#                           from ANCHOR_URL into the cache; hack/anchor/build.sh)
#   BENCH_KEEP=1            keep the last Maestro, its database and PgBouncer
#                           running after the run
#   With --one-consumer-agent real (phase one-consumer): a real `maestro agent`
#   for the one consumer, on a kube-apiserver of its own (hack/kube.sh,
#   hack/agent.sh), on these ports:
#   BENCH_KUBE_APISERVER_PORT [18643] BENCH_KUBE_ETCD_CLIENT_PORT [18679]
#   BENCH_KUBE_ETCD_PEER_PORT [18680] BENCH_KUBE_KCM_PORT [18657]
#   BENCH_AGENT_BASE_PORT   [18660]
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "bench.sh: $*" >&2; }

SIZES=1000,10000,50000
MODES=stock,pooled
PHASES=base
QUICK=0
sizes_given=0 modes_given=0
HARNESS_ARGS=()
while (($#)); do
	case "$1" in
	-h | --help | -help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		echo "Harness flags:"
		go run ./bench/load --help
		exit 0
		;;
	--clusters | --modes | --phases)
		(($# >= 2)) || { say "$1 needs a value"; exit 2; }
		case "$1" in
		--clusters) SIZES=$2 sizes_given=1 ;;
		--modes) MODES=$2 modes_given=1 ;;
		*) PHASES=$2 ;;
		esac
		shift
		;;
	--clusters=*) SIZES=${1#*=} sizes_given=1 ;;
	--modes=*) MODES=${1#*=} modes_given=1 ;;
	--phases=*) PHASES=${1#*=} ;;
	--quick)
		SIZES=200 sizes_given=1 QUICK=1
		HARNESS_ARGS+=(--unchanged-for 10s --latency-for 10s --settle-for 30s)
		;;
	*) HARNESS_ARGS+=("$1") ;;
	esac
	shift
done
# The phases of issue 34 (fleet): their own default sizes and setup, and a
# view max age short enough for the steady phase to span 2.5 of them in
# minutes. Harness flags given on the command line come after these, and win.
FLEET=0
[[ ",${PHASES}," =~ ,(fleet|all|one-consumer|steady|restart|replicas), ]] && FLEET=1
if ((FLEET)); then
	((sizes_given)) || SIZES=1000,10000
	((modes_given)) || MODES=pooled
	HARNESS_ARGS=(--view-max-age 2m "${HARNESS_ARGS[@]}")
	((QUICK)) && HARNESS_ARGS=(--restart-after 10s --restart-for 80s "${HARNESS_ARGS[@]}")
fi
# Issue 47's side-by-side with the anchor: a subcommand of the harness of
# its own, run once per adapter, alone.
SIDE=0
if [[ ",${PHASES}," == *,side-by-side,* ]]; then
	[[ "${PHASES}" == side-by-side ]] || { say "--phases side-by-side runs alone, not with ${PHASES}"; exit 2; }
	SIDE=1
	SIDE_AGENTS=${BENCH_SIDE_AGENTS:-none,simulated}
	[[ "${SIDE_AGENTS}" =~ ^(none|simulated)(,(none|simulated))*$ ]] || { say "BENCH_SIDE_AGENTS takes none and/or simulated, not ${SIDE_AGENTS}"; exit 2; }
	((sizes_given)) || SIZES=1000
	((modes_given)) || MODES=pooled
else
	HARNESS_ARGS=(--phases "${PHASES}" "${HARNESS_ARGS[@]}")
fi
REAL_AGENT=0
for ((i = 0; i < ${#HARNESS_ARGS[@]}; i++)); do
	a=${HARNESS_ARGS[i]}
	if [[ "${a}" == --one-consumer-agent=real || ("${a}" == --one-consumer-agent && "${HARNESS_ARGS[i + 1]:-}" == real) ]]; then
		REAL_AGENT=1
	elif [[ "${a}" == --one-consumer-agent* ]]; then
		REAL_AGENT=0 # the last one given wins, as in the harness
	fi
done
ONE_CONSUMER=bench-one # bench/load's oneConsumer
if ((REAL_AGENT)); then
	export KUBE_RUN_DIR=${BENCH_RUN_DIR:-/tmp/bundle-adapter-bench}/kube KUBE_FRESH=1
	export KUBE_APISERVER_PORT=${BENCH_KUBE_APISERVER_PORT:-18643}
	export KUBE_ETCD_CLIENT_PORT=${BENCH_KUBE_ETCD_CLIENT_PORT:-18679}
	export KUBE_ETCD_PEER_PORT=${BENCH_KUBE_ETCD_PEER_PORT:-18680}
	export KUBE_KCM_PORT=${BENCH_KUBE_KCM_PORT:-18657}
	export AGENT_RUN_DIR=${BENCH_RUN_DIR:-/tmp/bundle-adapter-bench}/agent AGENT_BASE_PORT=${BENCH_AGENT_BASE_PORT:-18660}
fi
IFS=, read -r -a SIZE_LIST <<<"${SIZES}"
IFS=, read -r -a MODE_LIST <<<"${MODES}"
for n in "${SIZE_LIST[@]}"; do
	[[ "${n}" =~ ^[1-9][0-9]*$ ]] || { say "--clusters takes a comma-separated list of sizes, not ${SIZES}"; exit 2; }
done
for m in "${MODE_LIST[@]}"; do
	[[ "${m}" == stock || "${m}" == pooled ]] || { say "--modes takes stock and/or pooled, not ${MODES}"; exit 2; }
done
RUN_DIR=${BENCH_RUN_DIR:-/tmp/bundle-adapter-bench}
export MAESTRO_RUN_DIR=${RUN_DIR}/maestro
export MAESTRO_DB_NAME=${BENCH_MAESTRO_DB_NAME:-maestro_bundle_adapter_bench}
export MAESTRO_HTTP_PORT=${BENCH_MAESTRO_HTTP_PORT:-18100}
export MAESTRO_GRPC_PORT=${BENCH_MAESTRO_GRPC_PORT:-18190}
export MAESTRO_BROKER_PORT=${BENCH_MAESTRO_BROKER_PORT:-18191}
export MAESTRO_HEALTH_PORT=${BENCH_MAESTRO_HEALTH_PORT:-18183}
export MAESTRO_METRICS_PORT=${BENCH_MAESTRO_METRICS_PORT:-18184}
export MAESTRO_LOG_LEVEL=${BENCH_MAESTRO_LOG_LEVEL:-1}
export MAESTRO_FRESH=1
export PGBOUNCER_RUN_DIR=${RUN_DIR}/pgbouncer
export PGBOUNCER_PORT=${BENCH_PGBOUNCER_PORT:-18432}
export PGBOUNCER_POOL_MODE=${BENCH_PGBOUNCER_POOL_MODE:-transaction}
export PGBOUNCER_SESSION_DB=${MAESTRO_DB_NAME}
OUT=${BENCH_OUT:-bench}
mkdir -p "${RUN_DIR}"
# Configs, adapter logs and results of earlier runs (the harness writes a
# run's configs into ${RUN_DIR}/bench<unix time>, its results into
# ${RUN_DIR}/runs/<mode>-<clusters>).
rm -rf "${RUN_DIR}"/bench[0-9]* "${RUN_DIR}/runs"

(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null || { say "PostgreSQL is not answering on 127.0.0.1:5432"; exit 1; }
(exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null || { say "RabbitMQ is not answering on 127.0.0.1:5672"; exit 1; }

say "building the adapter, the harness, the report and (if not cached) Maestro"
build_start=${SECONDS}
hack/maestro.sh build >/dev/null
ADAPTER_BIN=${BENCH_ADAPTER_BIN:-${RUN_DIR}/bundle-adapter}
if [[ -z "${BENCH_ADAPTER_BIN:-}" ]]; then
	CGO_ENABLED=0 go build -trimpath -o "${ADAPTER_BIN}" ./cmd/bundle-adapter
fi
go build -o "${RUN_DIR}/bench-load" ./bench/load
go build -o "${RUN_DIR}/bench-report" ./bench/report
if ((SIDE)); then
	read -r ANCHOR_BIN ANCHOR_COMMIT < <(hack/anchor/build.sh --example "${ANCHOR_REF:-3f746a5}" "${RUN_DIR}/anchor-example") ||
		{ say "could not build the anchor (hack/anchor/build.sh; set ANCHOR_GIT to a clone of hyperfleet-adapter)"; exit 1; }
	[[ -n "${ANCHOR_BIN:-}" ]] || { say "could not build the anchor (hack/anchor/build.sh)"; exit 1; }
	say "the anchor: ${ANCHOR_BIN} (commit ${ANCHOR_COMMIT}), its example in ${RUN_DIR}/anchor-example"
fi
say "built in $((SECONDS - build_start))s"

drop_db() {
	PGOPTIONS="-c client_min_messages=warning" PGPASSWORD="${MAESTRO_DB_PASSWORD:-}" psql -h "${MAESTRO_DB_HOST:-127.0.0.1}" \
		-p "${MAESTRO_DB_PORT:-5432}" -U "${MAESTRO_DB_USER:-postgres}" -d postgres -qtA \
		-c "drop database if exists \"${MAESTRO_DB_NAME}\" with (force)" >/dev/null || true
}

cleanup() {
	if [[ "${BENCH_KEEP:-0}" == 1 ]]; then
		say "BENCH_KEEP=1: Maestro and PgBouncer left running (MAESTRO_RUN_DIR=${MAESTRO_RUN_DIR} hack/maestro.sh stop;" \
			"PGBOUNCER_RUN_DIR=${PGBOUNCER_RUN_DIR} hack/pgbouncer.sh stop)"
		return
	fi
	if ((REAL_AGENT)); then
		hack/agent.sh stop >/dev/null 2>&1 || true
		hack/kube.sh stop >/dev/null 2>&1 || true
	fi
	hack/maestro.sh stop >/dev/null 2>&1 || true
	hack/pgbouncer.sh stop >/dev/null 2>&1 || true
	drop_db
}

# start_maestro starts a fresh Maestro for one run: on PostgreSQL (stock) or
# behind the PgBouncer (pooled).
start_maestro() {
	local mode=$1
	if [[ "${mode}" == pooled ]]; then
		export MAESTRO_DB_POOL_PORT=${PGBOUNCER_PORT} MAESTRO_DB_POOL_MODE=${PGBOUNCER_POOL_MODE}
	else
		unset MAESTRO_DB_POOL_PORT MAESTRO_DB_POOL_MODE
	fi
	# Bounded: maestro.sh waits for the REST API, which can hang on a stuck server.
	timeout "${BENCH_MAESTRO_START_TIMEOUT:-180}" hack/maestro.sh start >/dev/null ||
		{ say "Maestro did not start (log: ${MAESTRO_RUN_DIR}/maestro.log)"; return 1; }
	eval "$(hack/maestro.sh env)"
	say "${mode} Maestro up at ${MAESTRO_REST_URL} (gRPC ${MAESTRO_GRPC_ADDR}, agent broker ${MAESTRO_BROKER_ADDR})"
}

# run_one runs the harness at one size against one Maestro setup.
run_one() {
	local n=$1 mode=$2
	start_maestro "${mode}" || return 1
	if ((REAL_AGENT)); then
		say "starting a real maestro agent for ${ONE_CONSUMER} (log: $(hack/agent.sh log "${ONE_CONSUMER}"))"
		MAESTRO_BROKER_ADDR=${MAESTRO_BROKER_ADDR} hack/agent.sh start "${ONE_CONSUMER}" >/dev/null ||
			{ say "the real agent did not start"; hack/maestro.sh stop >/dev/null 2>&1 || true; return 1; }
	fi
	local rc=0
	"${RUN_DIR}/bench-load" \
		--adapter-bin "${ADAPTER_BIN}" \
		--run-dir "${RUN_DIR}" \
		--maestro-rest "${MAESTRO_REST_URL}" \
		--maestro-grpc "${MAESTRO_GRPC_ADDR}" \
		--maestro-broker "${MAESTRO_BROKER_ADDR}" \
		--maestro-pid-file "${MAESTRO_RUN_DIR}/maestro.pid" \
		--maestro-db "${MAESTRO_DB_NAME}" \
		--rabbitmq-url "${BENCH_RABBITMQ_URL:-amqp://guest:guest@127.0.0.1:5672/}" \
		"${HARNESS_ARGS[@]}" \
		--mode "${mode}" \
		--out "${RUN_DIR}/runs/${mode}-${n}" \
		--clusters "${n}" || rc=$?
	if ((REAL_AGENT)); then
		hack/agent.sh stop "${ONE_CONSUMER}" >/dev/null 2>&1 || true
	fi
	hack/maestro.sh stop >/dev/null 2>&1 || true
	return "${rc}"
}

# run_side_by_side runs issue 47's side-by-side at one size against one
# Maestro setup: the anchor, then bundle-adapter, each on a fresh Maestro,
# then their comparison.
run_side_by_side() {
	local n=$1 mode=$2 agent=$3 out c bin
	out=${RUN_DIR}/runs/side-by-side-${mode}-${n}-agent-${agent}
	for c in anchor bundle-adapter; do
		bin=${ADAPTER_BIN}
		[[ "${c}" == anchor ]] && bin=${ANCHOR_BIN}
		start_maestro "${mode}" || return 1
		say "side-by-side: ${c} on the anchor's example config, ${n} clusters, agent ${agent} (log: ${RUN_DIR}/sbs*-${c}/${c}.log)"
		local rc=0
		"${RUN_DIR}/bench-load" side-by-side \
			--contender "${c}" --bin "${bin}" --example "${RUN_DIR}/anchor-example" --agent "${agent}" \
			--run-dir "${RUN_DIR}" \
			--maestro-rest "${MAESTRO_REST_URL}" \
			--maestro-grpc "${MAESTRO_GRPC_ADDR}" \
			--maestro-broker "${MAESTRO_BROKER_ADDR}" \
			--rabbitmq-url "${BENCH_RABBITMQ_URL:-amqp://guest:guest@127.0.0.1:5672/}" \
			"${HARNESS_ARGS[@]}" \
			--out "${out}" \
			--clusters "${n}" || rc=$?
		hack/maestro.sh stop >/dev/null 2>&1 || true
		drop_db
		((rc == 0)) || return "${rc}"
	done
	"${RUN_DIR}/bench-load" side-by-side-report --out "${out}" "${out}/sidebyside-anchor.json" "${out}/sidebyside-bundle-adapter.json"
}

# A Maestro or PgBouncer left over by an interrupted run of this script is ours: stop it.
hack/maestro.sh stop >/dev/null 2>&1 || true
hack/pgbouncer.sh stop >/dev/null 2>&1 || true
trap cleanup EXIT
if [[ " ${MODE_LIST[*]} " == *" pooled "* ]]; then
	hack/pgbouncer.sh install
	hack/pgbouncer.sh start
fi
if ((REAL_AGENT)); then
	say "starting a kube-apiserver of the run's own for the real agent (hack/kube.sh, port ${KUBE_APISERVER_PORT})"
	hack/kube.sh build >/dev/null
	hack/agent.sh stop >/dev/null 2>&1 || true
	hack/kube.sh stop >/dev/null 2>&1 || true
	hack/kube.sh start >/dev/null || { say "hack/kube.sh start failed (logs in ${KUBE_RUN_DIR})"; exit 1; }
fi

# estimate is a rough length of one run at $1 clusters, in minutes, for the
# newcomer watching it: creates at about 100/s (20/s to one consumer with a
# fixed write budget), settle, the 30 s phases, the fleet phases' own.
estimate() {
	local n=$1 s
	s=$((2 * n / 100 + 60 + 120))
	[[ ",${PHASES}," =~ ,(fleet|all|one-consumer), ]] && s=$((s + 2 * n / 20 + 60))
	[[ ",${PHASES}," =~ ,(fleet|all|steady), ]] && s=$((s + 300))
	[[ ",${PHASES}," =~ ,(fleet|all|restart), ]] && s=$((s + 100))
	[[ ",${PHASES}," =~ ,(fleet|all|replicas), ]] && s=$((s + 90))
	echo $(((s + 59) / 60))
}

failed=()
if ((SIDE)); then
	for n in "${SIZE_LIST[@]}"; do
		for mode in "${MODE_LIST[@]}"; do
			for agent in ${SIDE_AGENTS//,/ }; do
				say "side-by-side: ${mode} Maestro, ${n} clusters, agent ${agent}; about 4 min; each adapter's rounds are logged as they end"
				run_start=${SECONDS}
				run_side_by_side "${n}" "${mode}" "${agent}" || failed+=("side-by-side-${mode}-${n}-agent-${agent}")
				say "side-by-side: ${mode} Maestro, ${n} clusters, agent ${agent} done in $((SECONDS - run_start))s"
			done
		done
	done
	if ((${#failed[@]})); then
		say "side-by-side runs that failed or missed a floor: ${failed[*]} (results in ${RUN_DIR}/runs/)"
		exit 1
	fi
	exit 0
fi
for n in "${SIZE_LIST[@]}"; do
	for mode in "${MODE_LIST[@]}"; do
		say "run: ${mode} Maestro, ${n} clusters, phases ${PHASES} (create, settle, warm-up, unchanged always);" \
			"about $(estimate "${n}") min; the harness logs each phase as it starts and its progress every 30 s"
		run_start=${SECONDS}
		if run_one "${n}" "${mode}"; then
			say "run: ${mode} Maestro, ${n} clusters done in $((SECONDS - run_start))s"
		else
			say "run: ${mode} Maestro, ${n} clusters FAILED after $((SECONDS - run_start))s (see above)"
			failed+=("${mode}-${n}")
		fi
	done
done

results=("${RUN_DIR}"/runs/*/results.json)
[[ -e "${results[0]}" ]] || { say "no run produced results"; exit 1; }
rc=0
"${RUN_DIR}/bench-report" --out "${OUT}" "${results[@]}" || rc=$?
if ((${#failed[@]})); then
	say "runs that failed (no results): ${failed[*]}"
	rc=1
fi
exit "${rc}"
