#!/usr/bin/env bash
# hack/bench.sh is the load harness of `make bench` (see bench/README.md).
#
# It builds the adapter binary and the harness (bench/load), starts a Maestro
# server of its own on a fresh PostgreSQL database and on ports of its own
# (so a Maestro already serving on the default ports is left alone), runs the
# harness against it, RabbitMQ and the adapter binary, then stops that Maestro
# and drops its database. Everything listens on loopback only.
#
# Usage: hack/bench.sh [harness flags]      e.g. hack/bench.sh --clusters 10000
#        hack/bench.sh --help               the harness flags
#
# Environment (defaults in brackets):
#   BENCH_RUN_DIR           [/tmp/bundle-adapter-bench] binaries, Maestro's run dir,
#                           and the last run's configs and adapter log
#   BENCH_MAESTRO_DB_NAME   [maestro_bundle_adapter_bench]
#   BENCH_MAESTRO_HTTP_PORT [18100]  BENCH_MAESTRO_GRPC_PORT    [18190]
#   BENCH_MAESTRO_BROKER_PORT [18191] BENCH_MAESTRO_HEALTH_PORT [18183]
#   BENCH_MAESTRO_METRICS_PORT [18184]
#   BENCH_MAESTRO_LOG_LEVEL [1]      klog -v of the server
#   BENCH_RABBITMQ_URL      [amqp://guest:guest@127.0.0.1:5672/]
#   BENCH_ADAPTER_BIN       [built from this tree] an adapter binary to measure
#                           instead (e.g. one built from another commit, for a
#                           before/after comparison)
#   BENCH_KEEP=1            keep Maestro running and its database after the run
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "bench.sh: $*" >&2; }

for arg in "$@"; do
	case "${arg}" in
	-h | --help | -help)
		go run ./bench/load --help
		exit 0
		;;
	esac
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
mkdir -p "${RUN_DIR}"
# Configs and adapter logs of earlier runs (the harness writes the run's into
# ${RUN_DIR}/bench<unix time>).
rm -rf "${RUN_DIR}"/bench[0-9]*

(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null || { say "PostgreSQL is not answering on 127.0.0.1:5432"; exit 1; }
(exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null || { say "RabbitMQ is not answering on 127.0.0.1:5672"; exit 1; }

say "building the adapter, the harness and (if not cached) Maestro"
hack/maestro.sh build >/dev/null
ADAPTER_BIN=${BENCH_ADAPTER_BIN:-${RUN_DIR}/bundle-adapter}
if [[ -z "${BENCH_ADAPTER_BIN:-}" ]]; then
	CGO_ENABLED=0 go build -trimpath -o "${ADAPTER_BIN}" ./cmd/bundle-adapter
fi
go build -o "${RUN_DIR}/bench-load" ./bench/load

drop_db() {
	PGOPTIONS="-c client_min_messages=warning" PGPASSWORD="${MAESTRO_DB_PASSWORD:-}" psql -h "${MAESTRO_DB_HOST:-127.0.0.1}" \
		-p "${MAESTRO_DB_PORT:-5432}" -U "${MAESTRO_DB_USER:-postgres}" -d postgres -qtA \
		-c "drop database if exists \"${MAESTRO_DB_NAME}\" with (force)" >/dev/null || true
}

cleanup() {
	if [[ "${BENCH_KEEP:-0}" == 1 ]]; then
		say "BENCH_KEEP=1: Maestro left running (MAESTRO_RUN_DIR=${MAESTRO_RUN_DIR} hack/maestro.sh stop)"
		return
	fi
	hack/maestro.sh stop >/dev/null 2>&1 || true
	drop_db
}

# A Maestro left over by an interrupted run of this script is ours: stop it.
hack/maestro.sh stop >/dev/null 2>&1 || true
trap cleanup EXIT
# Bounded: maestro.sh waits for the REST API, which can hang on a stuck server.
timeout "${BENCH_MAESTRO_START_TIMEOUT:-180}" hack/maestro.sh start >/dev/null ||
	{ say "Maestro did not start (log: ${MAESTRO_RUN_DIR}/maestro.log)"; exit 1; }
eval "$(hack/maestro.sh env)"
say "Maestro up at ${MAESTRO_REST_URL} (gRPC ${MAESTRO_GRPC_ADDR}, agent broker ${MAESTRO_BROKER_ADDR})"

"${RUN_DIR}/bench-load" \
	--adapter-bin "${ADAPTER_BIN}" \
	--run-dir "${RUN_DIR}" \
	--maestro-rest "${MAESTRO_REST_URL}" \
	--maestro-grpc "${MAESTRO_GRPC_ADDR}" \
	--maestro-broker "${MAESTRO_BROKER_ADDR}" \
	--maestro-pid-file "${MAESTRO_RUN_DIR}/maestro.pid" \
	--maestro-db "${MAESTRO_DB_NAME}" \
	--rabbitmq-url "${BENCH_RABBITMQ_URL:-amqp://guest:guest@127.0.0.1:5672/}" \
	--out bench \
	"$@"
