#!/usr/bin/env bash
# hack/pgbouncer.sh runs a PgBouncer of its own in front of the machine's
# PostgreSQL, for the pooled rows of `make bench` (bench/README.md).
#
# Usage: hack/pgbouncer.sh <command>
#   install   install Debian's pgbouncer package when missing (apt-get, non-interactive)
#   start     write the config and start PgBouncer in the background
#   stop      stop the PgBouncer started by start
#   status    print whether it runs
#
# It listens on loopback only, trusts every client (as the machine's
# PostgreSQL does), runs unprivileged (as user postgres when started as root:
# PgBouncer refuses to run as root) and pools every database by
# PGBOUNCER_POOL_MODE. For PGBOUNCER_SESSION_DB it adds the alias
# "<db>_listen", pooled by session: Maestro's LISTEN connections need a session
# (see MAESTRO_DB_POOL_MODE in hack/maestro.sh).
#
# Environment (defaults in brackets):
#   PGBOUNCER_RUN_DIR     [/tmp/bundle-adapter-pgbouncer] config, log, pid
#   PGBOUNCER_PORT        [16432]
#   PGBOUNCER_POOL_MODE   [transaction] session | transaction | statement
#   PGBOUNCER_POOL_SIZE   [20]   server connections per database and user
#   PGBOUNCER_SESSION_DB  [unset] database that gets a "<db>_listen" session alias
#   PGBOUNCER_USERS       [postgres] the users it admits (space-separated)
#   PGBOUNCER_UPSTREAM_HOST [127.0.0.1]  PGBOUNCER_UPSTREAM_PORT [5432]
set -euo pipefail

RUN_DIR=${PGBOUNCER_RUN_DIR:-/tmp/bundle-adapter-pgbouncer}
PORT=${PGBOUNCER_PORT:-16432}
POOL_MODE=${PGBOUNCER_POOL_MODE:-transaction}
POOL_SIZE=${PGBOUNCER_POOL_SIZE:-20}
UP_HOST=${PGBOUNCER_UPSTREAM_HOST:-127.0.0.1}
UP_PORT=${PGBOUNCER_UPSTREAM_PORT:-5432}
PID_FILE=${RUN_DIR}/pgbouncer.pid
LOG_FILE=${RUN_DIR}/pgbouncer.log
CONF=${RUN_DIR}/pgbouncer.ini

die() { echo "pgbouncer.sh: error: $*" >&2; exit 1; }
log() { echo "pgbouncer.sh: $*" >&2; }

cmd_install() {
	command -v pgbouncer >/dev/null && return
	local sudo=()
	if ((EUID != 0)); then
		sudo -n true 2>/dev/null || die "pgbouncer is not installed and installing it needs root (apt-get install pgbouncer)"
		sudo=(sudo -n)
	fi
	log "installing Debian's pgbouncer package"
	local start=${SECONDS}
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends pgbouncer >&2 ||
		die "apt-get install pgbouncer failed (apt-get update first?)"
	log "installed in $((SECONDS - start))s"
}

# running prints the PID when the PID file names a live pgbouncer.
running() {
	[[ -f "${PID_FILE}" ]] || return 1
	local pid
	pid=$(<"${PID_FILE}")
	[[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null || return 1
	grep -qa pgbouncer "/proc/${pid}/cmdline" 2>/dev/null || return 1
	echo "${pid}"
}

write_config() {
	local session_db=${PGBOUNCER_SESSION_DB:-} user_line=""
	((EUID != 0)) || user_line="user = postgres"
	{
		echo "[databases]"
		if [[ -n "${session_db}" ]]; then
			echo "${session_db}_listen = host=${UP_HOST} port=${UP_PORT} dbname=${session_db} pool_mode=session"
		fi
		echo "* = host=${UP_HOST} port=${UP_PORT}"
		cat <<INI
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${PORT}
unix_socket_dir =
auth_type = trust
auth_file = ${RUN_DIR}/userlist.txt
pool_mode = ${POOL_MODE}
default_pool_size = ${POOL_SIZE}
max_client_conn = 500
${user_line}
logfile = ${LOG_FILE}
pidfile = ${PID_FILE}
log_connections = 0
log_disconnections = 0
; pgx sends extra_float_digits; Maestro's LISTEN connections (lib/pq) send
; the pgx-only default_query_exec_mode of its connection string
ignore_startup_parameters = extra_float_digits,default_query_exec_mode
INI
	} >"${CONF}"
	# trust still admits only the users it lists
	local u
	for u in ${PGBOUNCER_USERS:-postgres}; do printf '"%s" ""\n' "${u}"; done >"${RUN_DIR}/userlist.txt"
}

cmd_start() {
	local pid
	if pid=$(running); then
		log "already running (pid ${pid}) on 127.0.0.1:${PORT}"
		return
	fi
	command -v pgbouncer >/dev/null || die "pgbouncer not installed (run: $0 install)"
	case "${POOL_MODE}" in session | transaction | statement) ;; *) die "PGBOUNCER_POOL_MODE must be session, transaction or statement" ;; esac
	if ss -Hltn "sport = :${PORT}" 2>/dev/null | grep -q .; then
		die "port ${PORT} is already in use (set PGBOUNCER_PORT)"
	fi
	mkdir -p "${RUN_DIR}"
	rm -f "${LOG_FILE}"
	write_config
	((EUID != 0)) || chown -R postgres: "${RUN_DIR}"
	pgbouncer -d "${CONF}" >/dev/null 2>&1 || { tail -n 20 "${LOG_FILE}" >&2 || true; die "pgbouncer did not start"; }
	local deadline=$((SECONDS + 10))
	until (exec 3<>"/dev/tcp/127.0.0.1/${PORT}") 2>/dev/null; do
		((SECONDS < deadline)) || { tail -n 20 "${LOG_FILE}" >&2 || true; die "pgbouncer not listening after 10s"; }
		sleep 0.2
	done
	log "started (pid $(<"${PID_FILE}")) on 127.0.0.1:${PORT}, ${POOL_MODE} pooling, log ${LOG_FILE}"
}

cmd_stop() {
	local pid
	if ! pid=$(running); then
		log "not running"
		return
	fi
	kill -TERM "${pid}" # 1.18: SIGTERM shuts down at once, SIGINT waits for clients
	local deadline=$((SECONDS + 10))
	while kill -0 "${pid}" 2>/dev/null; do
		((SECONDS < deadline)) || { kill -KILL "${pid}" 2>/dev/null || true; }
		sleep 0.2
	done
	log "stopped (pid ${pid})"
}

cmd_status() {
	local pid
	if pid=$(running); then
		echo "running pid=${pid} port=${PORT} pool_mode=${POOL_MODE} log=${LOG_FILE}"
	else
		echo "stopped"
		return 3
	fi
}

case "${1:-}" in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
help | -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
*) die "usage: $0 install|start|stop|status" ;;
esac
