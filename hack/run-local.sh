#!/usr/bin/env bash
# hack/run-local.sh is `make run-local`: the onprem example's recreation
# story on the real local stack, event by event.
#
#   1. brings the stack up (hack/stack.sh up CONSUMER: Maestro on PostgreSQL,
#      etcd + kube-apiserver + kube-controller-manager, a real maestro agent);
#      the first run builds Maestro and Kubernetes from Go modules (about
#      12 min on 2 cores), later runs reuse the cached binaries;
#   2. builds the adapter (make build, unless make is already running this)
#      and the demo (hack/demo);
#   3. runs the demo: a fake HyperFleet API, `bundle-adapter serve` with the
#      onprem example on the machine's RabbitMQ, a Sentinel publishing a
#      reconcile event every 2 s, and the story printed as it happens
#      (status PUTs, bundle operations, objects in the API server).
#
# Usage: hack/run-local.sh [--once] [--down] [DEMO FLAGS...]
#   --once   tell the story once and exit: 0 when every step happened in
#            time, 1 when one did not (--step-timeout, default 60s)
#   (none)   after the story the adapter keeps running; Ctrl-C stops it
#            (SIGTERM to the adapter) and exits 0
#   --down   take the stack down at the end (default: leave it up, so the
#            next run starts in about a second; hack/stack.sh down stops it)
#   other flags go to the demo: --hold 5s, --interval 2s, --cluster-id ID,
#   --keep (keep the temp folder with configs and adapter.log); see
#   `go run ./hack/demo -h`.
#
# Environment: MAESTRO_CONSUMER (default cluster1), RABBITMQ_URL (default
# amqp://guest:guest@127.0.0.1:5672/), and those of hack/stack.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

down=0
args=()
for a in "$@"; do
	case "${a}" in
	--down) down=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) args+=("${a}") ;;
	esac
done

consumer=${MAESTRO_CONSUMER:-cluster1}
export MAESTRO_CONSUMER=${consumer}
start=${SECONDS}
if ! hack/stack.sh up "${consumer}" >/dev/null; then
	echo "run-local.sh: hack/stack.sh up ${consumer} failed (hack/stack.sh status shows each part)" >&2
	exit 1
fi
eval "$(hack/stack.sh env)"
if [[ -z "${MAKELEVEL:-}" ]]; then
	make --no-print-directory build >/dev/null
fi
go build -o bin/bundle-adapter-demo ./hack/demo
echo "run-local.sh: stack up and binaries built in $((SECONDS - start))s" >&2

if ((down == 0)); then
	exec bin/bundle-adapter-demo --bin bin/bundle-adapter --consumer "${consumer}" "${args[@]}"
fi
rc=0
bin/bundle-adapter-demo --bin bin/bundle-adapter --consumer "${consumer}" "${args[@]}" || rc=$?
hack/stack.sh down >/dev/null || { ((rc)) || rc=1; }
exit "${rc}"
