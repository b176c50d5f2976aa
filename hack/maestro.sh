#!/usr/bin/env bash
# hack/maestro.sh builds, runs and stops a local Maestro server for tests.
#
# Usage: hack/maestro.sh <command> [args]
#   build              build the maestro binary (cached by version), print its path
#   path               print the cached binary path (no build)
#   start [--fresh]    create the database, migrate, start the server in background
#   register NAME...   register consumers (idempotent)
#   stop               stop the server started by start
#   status             print whether the server runs and its addresses
#   env                print export lines for the integration tests
#
# Environment (defaults in brackets):
#   MAESTRO_VERSION        [v0.0.0-20260202062555-48b47506a254]
#   OCM_COMMON_VERSION     [v0.0.36]
#   BUNDLE_ADAPTER_CACHE   [$HOME/.cache/bundle-adapter]
#   MAESTRO_RUN_DIR        [/tmp/bundle-adapter-maestro]
#   MAESTRO_DB_NAME        [maestro_bundle_adapter]
#   MAESTRO_DB_HOST        [127.0.0.1]   MAESTRO_DB_PORT [5432]
#   MAESTRO_DB_USER        [postgres]    MAESTRO_DB_PASSWORD [empty]
#   MAESTRO_FRESH          [0] set to 1 to drop and recreate the database on start
#   MAESTRO_DB_POOL_PORT   [unset] the server's connections go to a pooler on
#                          this port of MAESTRO_DB_HOST (hack/pgbouncer.sh);
#                          the database is still created and migrated on
#                          MAESTRO_DB_PORT
#   MAESTRO_DB_POOL_MODE   [transaction] the pooler's mode. transaction: the
#                          server's pgx pool uses the simple protocol (pgx
#                          prepares named statements by default, which a
#                          transaction pooler hands to other sessions), and
#                          its LISTEN connections (lib/pq) connect to the
#                          session-pooled alias "<db>_listen" (see
#                          bench/README.md: Maestro has no setting for either,
#                          so both ride on its unescaped connection string;
#                          needs an empty MAESTRO_DB_PASSWORD, trust auth).
#                          session: the pooler is used as it is
#   MAESTRO_HTTP_PORT      [8000]  REST API
#   MAESTRO_GRPC_PORT      [8090]  source gRPC server
#   MAESTRO_BROKER_PORT    [8091]  agent gRPC broker
#   MAESTRO_HEALTH_PORT    [8083]  health check (/healthcheck)
#   MAESTRO_METRICS_PORT   [8084]  metrics (default of maestro 8080 clashes too often)
#   MAESTRO_START_TIMEOUT  [60]    seconds to wait for the health endpoint
#   MAESTRO_LOG_LEVEL      [2]     klog verbosity of the server (-v)
#   MAESTRO_GRPC_TLS_CERT_FILE, MAESTRO_GRPC_TLS_KEY_FILE
#                          [unset] serve the source gRPC API over TLS with this
#                          PEM pair; without a client CA authentication stays
#                          "mock" (every client is "mock", every source allowed)
#   MAESTRO_GRPC_CLIENT_CA_FILE
#                          [unset] mutual TLS on the source gRPC API
#                          (--grpc-authn-type=mtls): clients must present a
#                          certificate signed by this PEM CA (or a system
#                          root); its CN is the user, its O the groups (both
#                          required). Needs the TLS pair above and
#                          MAESTRO_GRPC_AUTHORIZER_KUBECONFIG
#   MAESTRO_GRPC_AUTHORIZER_KUBECONFIG
#                          [unset] kubeconfig of the Kubernetes API server that
#                          authorizes mTLS clients: every publish and subscribe
#                          is a SubjectAccessReview of nonResourceURL
#                          /sources/<source-id>, verb pub or sub (RBAC: a
#                          ClusterRole with nonResourceURLs and a binding)
#   MAESTRO_HTTPS_CERT_FILE, MAESTRO_HTTPS_KEY_FILE
#                          [unset] serve the REST API over HTTPS with this PEM
#                          pair (MAESTRO_REST_URL becomes https://). Runs the
#                          server as MAESTRO_ENV=production (development means
#                          HTTPS off) with JWT and authz off. Health check,
#                          metrics and the agent broker stay plaintext
#   MAESTRO_HTTPS_CA_FILE  [unset] CA this script verifies the HTTPS server with
#                          (start, register); unset: not verified (loopback)
#   The TLS variables (like the ports) must be set for every command, so that
#   env, status and register address the server as it was started.
set -euo pipefail

MAESTRO_MODULE=github.com/openshift-online/maestro
MAESTRO_VERSION=${MAESTRO_VERSION:-v0.0.0-20260202062555-48b47506a254}
OCM_COMMON_VERSION=${OCM_COMMON_VERSION:-v0.0.36}
CACHE_DIR=${BUNDLE_ADAPTER_CACHE:-${HOME}/.cache/bundle-adapter}/maestro/${MAESTRO_VERSION}
BIN=${CACHE_DIR}/maestro

die() { echo "maestro.sh: error: $*" >&2; exit 1; }
log() { echo "maestro.sh: $*" >&2; }

cmd_path() { echo "${BIN}"; }

# cmd_build builds maestro from a throwaway wrapper module in the cache dir, so
# the repository's go.mod never carries the server's dependencies.
cmd_build() {
	if [[ -x "${BIN}" ]]; then
		echo "${BIN}"
		return
	fi
	command -v go >/dev/null || die "go not found in PATH"
	mkdir -p "${CACHE_DIR}"
	# One build at a time per version; a waiting build finds the binary.
	exec 9>"${CACHE_DIR}/build.lock"
	flock 9
	if [[ -x "${BIN}" ]]; then
		echo "${BIN}"
		return
	fi
	local src="${CACHE_DIR}/src"
	rm -rf "${src}"
	mkdir -p "${src}"
	cat >"${src}/go.mod" <<MOD
module bundle-adapter.local/maestro-wrapper

go 1.25.0

require (
	${MAESTRO_MODULE} ${MAESTRO_VERSION}
	github.com/openshift-online/ocm-common ${OCM_COMMON_VERSION}
)
MOD
	log "building ${MAESTRO_MODULE}/cmd/maestro@${MAESTRO_VERSION} (takes minutes when cold)"
	local start=${SECONDS}
	(
		cd "${src}"
		export GOWORK=off GOFLAGS=-mod=mod
		go get "${MAESTRO_MODULE}/cmd/maestro@${MAESTRO_VERSION}" \
			"github.com/openshift-online/ocm-common@${OCM_COMMON_VERSION}" >&2
		go build -trimpath -o "${BIN}.tmp" "${MAESTRO_MODULE}/cmd/maestro" >&2
	) || die "build failed (see output above)"
	mv "${BIN}.tmp" "${BIN}"
	log "built in $((SECONDS - start))s"
	echo "${BIN}"
}

RUN_DIR=${MAESTRO_RUN_DIR:-/tmp/bundle-adapter-maestro}
PID_FILE=${RUN_DIR}/maestro.pid
LOG_FILE=${RUN_DIR}/maestro.log
DB_NAME=${MAESTRO_DB_NAME:-maestro_bundle_adapter}
DB_HOST=${MAESTRO_DB_HOST:-127.0.0.1}
DB_PORT=${MAESTRO_DB_PORT:-5432}
DB_USER=${MAESTRO_DB_USER:-postgres}
DB_PASSWORD=${MAESTRO_DB_PASSWORD:-}
POOL_PORT=${MAESTRO_DB_POOL_PORT:-}
POOL_MODE=${MAESTRO_DB_POOL_MODE:-transaction}
HOST=127.0.0.1
HTTP_PORT=${MAESTRO_HTTP_PORT:-8000}
GRPC_PORT=${MAESTRO_GRPC_PORT:-8090}
BROKER_PORT=${MAESTRO_BROKER_PORT:-8091}
HEALTH_PORT=${MAESTRO_HEALTH_PORT:-8083}
METRICS_PORT=${MAESTRO_METRICS_PORT:-8084}
HTTPS_CERT_FILE=${MAESTRO_HTTPS_CERT_FILE:-}
HTTPS_KEY_FILE=${MAESTRO_HTTPS_KEY_FILE:-}
REST_URL=http://${HOST}:${HTTP_PORT}
# REST_TLS holds the curl flags of the REST calls of this script.
REST_TLS=()
if [[ -n "${HTTPS_CERT_FILE}${HTTPS_KEY_FILE}" ]]; then
	REST_URL=https://${HOST}:${HTTP_PORT}
	REST_TLS=(--insecure)
	[[ -z "${MAESTRO_HTTPS_CA_FILE:-}" ]] || REST_TLS=(--cacert "${MAESTRO_HTTPS_CA_FILE}")
fi

# running prints the server PID when the PID file names a live maestro process.
running() {
	[[ -f "${PID_FILE}" ]] || return 1
	local pid
	pid=$(<"${PID_FILE}")
	[[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null || return 1
	grep -qa maestro "/proc/${pid}/cmdline" 2>/dev/null || return 1
	echo "${pid}"
}

psql_admin() {
	PGOPTIONS="-c client_min_messages=warning" PGPASSWORD="${DB_PASSWORD}" psql -h "${DB_HOST}" -p "${DB_PORT}" -U "${DB_USER}" \
		-d postgres -v ON_ERROR_STOP=1 -qtA "$@"
}

# prepare_db creates the database if missing; fresh=1 drops it first.
prepare_db() {
	local fresh=$1
	command -v psql >/dev/null || die "psql not found in PATH"
	psql_admin -c 'select 1' >/dev/null ||
		die "cannot reach PostgreSQL at ${DB_HOST}:${DB_PORT} as ${DB_USER}"
	if [[ "${fresh}" == 1 ]]; then
		log "dropping database ${DB_NAME}"
		psql_admin -c "drop database if exists \"${DB_NAME}\" with (force)" >/dev/null
	fi
	if [[ -z "$(psql_admin -c "select 1 from pg_database where datname='${DB_NAME}'")" ]]; then
		log "creating database ${DB_NAME}"
		psql_admin -c "create database \"${DB_NAME}\"" >/dev/null
	fi
}

# write_secrets writes the db credential files maestro reads, without
# newline: port, name and password as given (default: PostgreSQL's).
write_secrets() {
	local dir=${RUN_DIR}/secrets port=${1:-${DB_PORT}} name=${2:-${DB_NAME}} password=${3:-${DB_PASSWORD}}
	mkdir -p "${dir}"
	chmod 700 "${dir}"
	printf '%s' "${DB_HOST}" >"${dir}/db.host"
	printf '%s' "${port}" >"${dir}/db.port"
	printf '%s' "${name}" >"${dir}/db.name"
	printf '%s' "${DB_USER}" >"${dir}/db.user"
	(umask 077 && printf '%s' "${password}" >"${dir}/db.password")
}

# write_pool_secrets points the server at the pooler on MAESTRO_DB_POOL_PORT.
# Maestro pastes the name into the keyword/value connection string of its pgx
# pool and of its LISTEN connections (lib/pq), and the password (quoted) into
# the latter only; nothing is escaped. In transaction mode the name carries
# pgx's default_query_exec_mode=simple_protocol (lib/pq sends it on as a
# startup parameter, which the pooler ignores) and the password ends the quote
# and names the session-pooled alias for the LISTEN connections.
write_pool_secrets() {
	case "${POOL_MODE}" in
	session) write_secrets "${POOL_PORT}" ;;
	transaction)
		[[ -z "${DB_PASSWORD}" ]] || die "MAESTRO_DB_POOL_MODE=transaction needs an empty MAESTRO_DB_PASSWORD (trust auth)"
		write_secrets "${POOL_PORT}" "${DB_NAME} default_query_exec_mode=simple_protocol" "' dbname='${DB_NAME}_listen"
		;;
	*) die "MAESTRO_DB_POOL_MODE must be session or transaction" ;;
	esac
}

# DB_ARGS holds the database flags of migration and server.
DB_ARGS=(
	--db-host-file="${RUN_DIR}/secrets/db.host"
	--db-port-file="${RUN_DIR}/secrets/db.port"
	--db-name-file="${RUN_DIR}/secrets/db.name"
	--db-user-file="${RUN_DIR}/secrets/db.user"
	--db-password-file="${RUN_DIR}/secrets/db.password"
	--db-sslmode=disable
)

check_ports_free() {
	local port
	for port in "${HTTP_PORT}" "${GRPC_PORT}" "${BROKER_PORT}" "${HEALTH_PORT}" "${METRICS_PORT}"; do
		if ss -Hltn "sport = :${port}" 2>/dev/null | grep -q .; then
			die "port ${port} is already in use (set MAESTRO_*_PORT to move it)"
		fi
	done
}

wait_healthy() {
	local timeout=${MAESTRO_START_TIMEOUT:-60} pid=$1
	local deadline=$((SECONDS + timeout))
	until curl -fsS -o /dev/null "http://${HOST}:${HEALTH_PORT}/healthcheck" 2>/dev/null &&
		curl -fsS "${REST_TLS[@]}" -o /dev/null "${REST_URL}/api/maestro/v1/consumers" 2>/dev/null; do
		if ! kill -0 "${pid}" 2>/dev/null; then
			tail -n 30 "${LOG_FILE}" >&2 || true
			die "maestro exited during start-up, log: ${LOG_FILE}"
		fi
		((SECONDS < deadline)) || die "maestro not healthy after ${timeout}s, log: ${LOG_FILE}"
		sleep 0.5
	done
}

cmd_start() {
	local fresh=${MAESTRO_FRESH:-0} pid
	while (($#)); do
		case "$1" in
		--fresh) fresh=1 ;;
		*) die "start: unknown flag $1" ;;
		esac
		shift
	done
	if pid=$(running); then
		log "already running (pid ${pid})"
		print_addresses
		return
	fi
	[[ -x "${BIN}" ]] || die "no maestro binary at ${BIN}; run: $0 build"
	tls_args
	check_ports_free
	mkdir -p "${RUN_DIR}"
	prepare_db "${fresh}"
	write_secrets
	"${BIN}" migration "${DB_ARGS[@]}" --alsologtostderr -v=2 >"${RUN_DIR}/migration.log" 2>&1 ||
		{ tail -n 30 "${RUN_DIR}/migration.log" >&2; die "migration failed, log: ${RUN_DIR}/migration.log"; }
	[[ -z "${POOL_PORT}" ]] || write_pool_secrets
	launch
	pid=$(<"${PID_FILE}")
	wait_healthy "${pid}"
	log "started (pid ${pid}), log: ${LOG_FILE}"
	print_addresses
}

# readable dies unless every named variable holds the path of a readable file.
readable() {
	local v
	for v in "$@"; do
		[[ -r "${!v:-}" ]] || die "${v} must name a readable file (got '${!v:-}')"
	done
}

# tls_args checks the TLS variables and sets TLS_ARGS (server flags) and
# SERVER_ENV (environment of the server process) from them.
tls_args() {
	TLS_ARGS=() SERVER_ENV=()
	if [[ -n "${MAESTRO_GRPC_TLS_CERT_FILE:-}${MAESTRO_GRPC_TLS_KEY_FILE:-}" ]]; then
		[[ -r "${MAESTRO_GRPC_TLS_CERT_FILE:-}" && -r "${MAESTRO_GRPC_TLS_KEY_FILE:-}" ]] ||
			die "MAESTRO_GRPC_TLS_CERT_FILE and MAESTRO_GRPC_TLS_KEY_FILE must both name readable files"
		TLS_ARGS+=(--grpc-tls-cert-file="${MAESTRO_GRPC_TLS_CERT_FILE}" --grpc-tls-key-file="${MAESTRO_GRPC_TLS_KEY_FILE}")
	fi
	if [[ -n "${MAESTRO_GRPC_CLIENT_CA_FILE:-}${MAESTRO_GRPC_AUTHORIZER_KUBECONFIG:-}" ]]; then
		[[ -n "${MAESTRO_GRPC_TLS_CERT_FILE:-}" ]] || die "gRPC mutual TLS needs MAESTRO_GRPC_TLS_CERT_FILE and MAESTRO_GRPC_TLS_KEY_FILE"
		readable MAESTRO_GRPC_CLIENT_CA_FILE MAESTRO_GRPC_AUTHORIZER_KUBECONFIG
		TLS_ARGS+=(--grpc-authn-type=mtls --grpc-client-ca-file="${MAESTRO_GRPC_CLIENT_CA_FILE}"
			--grpc-authorizer-config="${MAESTRO_GRPC_AUTHORIZER_KUBECONFIG}")
	fi
	if [[ -n "${HTTPS_CERT_FILE}${HTTPS_KEY_FILE}" ]]; then
		readable MAESTRO_HTTPS_CERT_FILE MAESTRO_HTTPS_KEY_FILE
		[[ -z "${MAESTRO_HTTPS_CA_FILE:-}" ]] || readable MAESTRO_HTTPS_CA_FILE
		# The development environment (the default) means HTTPS off: its
		# VisitConfig forces it (in this version on a config copy the server
		# never reads, so it is not enforced). Production only sets defaults;
		# these flags pin them: no JWT, no authz, no OCM, no Sentry.
		SERVER_ENV=(MAESTRO_ENV=production)
		TLS_ARGS+=(--enable-https=true --https-cert-file="${HTTPS_CERT_FILE}" --https-key-file="${HTTPS_KEY_FILE}"
			--enable-jwt=false --enable-authz=false --enable-ocm-mock=true --enable-sentry=false)
	fi
}

# launch starts the server in the background, on loopback only.
launch() {
	local args=(server "${DB_ARGS[@]}"
		--message-broker-type=grpc
		--server-hostname="${HOST}"
		--http-server-bindport="${HTTP_PORT}"
		--grpc-server-bindport="${GRPC_PORT}"
		--grpc-broker-bindport="${BROKER_PORT}"
		--health-check-server-bindport="${HEALTH_PORT}"
		--metrics-server-bindport="${METRICS_PORT}"
		--alsologtostderr -v="${MAESTRO_LOG_LEVEL:-2}"
		"${TLS_ARGS[@]}"
	)
	env "${SERVER_ENV[@]}" nohup "${BIN}" "${args[@]}" </dev/null >"${LOG_FILE}" 2>&1 &
	echo $! >"${PID_FILE}"
}

print_addresses() {
	cat <<ADDR
MAESTRO_REST_URL=${REST_URL}
MAESTRO_GRPC_ADDR=${HOST}:${GRPC_PORT}
MAESTRO_BROKER_ADDR=${HOST}:${BROKER_PORT}
MAESTRO_HEALTH_URL=http://${HOST}:${HEALTH_PORT}/healthcheck
MAESTRO_METRICS_URL=http://${HOST}:${METRICS_PORT}/metrics
ADDR
}

cmd_env() {
	print_addresses | sed 's/^/export /'
}

cmd_stop() {
	local pid
	if ! pid=$(running); then
		log "not running"
		rm -f "${PID_FILE}"
		return
	fi
	kill -TERM "${pid}"
	local deadline=$((SECONDS + ${MAESTRO_STOP_TIMEOUT:-20}))
	while kill -0 "${pid}" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			log "pid ${pid} ignored SIGTERM, sending SIGKILL"
			kill -KILL "${pid}" 2>/dev/null || true
		fi
		sleep 0.2
	done
	rm -f "${PID_FILE}"
	log "stopped (pid ${pid})"
}

cmd_status() {
	local pid
	if pid=$(running); then
		local health=unhealthy
		curl -fsS -o /dev/null "http://${HOST}:${HEALTH_PORT}/healthcheck" 2>/dev/null && health=healthy
		echo "running pid=${pid} ${health} log=${LOG_FILE}"
		print_addresses
	else
		echo "stopped"
		return 3
	fi
}

# cmd_register registers consumers; an existing consumer of that name is fine.
cmd_register() {
	(($#)) || die "register: need at least one consumer name"
	local name code body
	for name in "$@"; do
		[[ "${name}" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || die "register: invalid consumer name ${name}"
		body=$(mktemp)
		code=$(curl -sS "${REST_TLS[@]}" -o "${body}" -w '%{http_code}' -X POST \
			-H 'Content-Type: application/json' \
			-d "{\"name\":\"${name}\"}" "${REST_URL}/api/maestro/v1/consumers") ||
			{ rm -f "${body}"; die "register: maestro unreachable at ${REST_URL}"; }
		case "${code}" in
		201 | 200) log "registered consumer ${name}" ;;
		409) log "consumer ${name} already registered" ;;
		*)
			cat "${body}" >&2
			rm -f "${body}"
			die "register ${name}: HTTP ${code}"
			;;
		esac
		rm -f "${body}"
	done
}

main() {
	local cmd=${1:-}
	[[ -n "${cmd}" ]] || die "missing command (build|path|start|register|stop|status|env)"
	shift
	case "${cmd}" in
	help | -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
	build) cmd_build "$@" ;;
	path) cmd_path "$@" ;;
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	status) cmd_status "$@" ;;
	register) cmd_register "$@" ;;
	env) cmd_env "$@" ;;
	*) die "unknown command ${cmd}" ;;
	esac
}

main "$@"
