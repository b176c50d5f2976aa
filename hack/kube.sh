#!/usr/bin/env bash
# hack/kube.sh builds and runs a minimal Kubernetes control plane on loopback
# for the real Maestro agent: etcd, kube-apiserver and kube-controller-manager
# (no kubelet, no scheduler: pods stay Pending, which the tests do not need).
#
# Usage: hack/kube.sh <command> [args]
#   build          build etcd, kube-apiserver, kube-controller-manager and
#                  kubectl (cached by version), print their paths
#   path           print the cached binary directory (no build)
#   start          generate a PKI, start etcd, the API server and the
#                  controller-manager, wait for /readyz, install the
#                  AppliedManifestWork CRD; already running => says so
#   stop           stop controller-manager, API server, etcd (in that order)
#   status         print whether each component runs (exit 3 when stopped)
#   env            print `export KUBECONFIG=...`, KUBE_SERVER_URL and KUBECTL
#   kubectl ARGS   run the built kubectl against this cluster
#
# Environment (defaults in brackets):
#   KUBE_VERSION            [v1.36.3]  k8s.io/kubernetes version
#   KUBE_STAGING_VERSION    [v0.36.3]  version of every k8s.io staging module
#   ETCD_VERSION            [v3.6.16]  go.etcd.io/etcd/server/v3 version
#   OCM_API_VERSION         [v1.3.0]   open-cluster-management.io/api (CRD source)
#   BUNDLE_ADAPTER_CACHE    [$HOME/.cache/bundle-adapter]
#   KUBE_RUN_DIR            [/tmp/bundle-adapter-kube]  PKI, data, logs, PID files
#   KUBE_APISERVER_PORT     [6443]   secure port of the API server (127.0.0.1)
#   KUBE_ETCD_CLIENT_PORT   [12379]  etcd client port
#   KUBE_ETCD_PEER_PORT     [12380]  etcd peer port
#   KUBE_KCM_PORT           [10257]  controller-manager secure (health) port
#   KUBE_FRESH              [0]      set to 1 to wipe etcd data and PKI on start
#   KUBE_START_TIMEOUT      [90]     seconds to wait for each component
#   KUBE_STOP_TIMEOUT       [20]     seconds before SIGKILL on stop
#   KUBE_LOG_LEVEL          [1]      -v of the API server and controller-manager
#   KUBE_BUILD_PARALLEL     [unset]  go build -p value (default: go's own)
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.36.3}
KUBE_STAGING_VERSION=${KUBE_STAGING_VERSION:-v0.36.3}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
OCM_API_VERSION=${OCM_API_VERSION:-v1.3.0}
CACHE_ROOT=${BUNDLE_ADAPTER_CACHE:-${HOME}/.cache/bundle-adapter}/kube
KUBE_BIN_DIR=${CACHE_ROOT}/${KUBE_VERSION}
ETCD_BIN_DIR=${CACHE_ROOT}/etcd-${ETCD_VERSION}
ETCD_BIN=${ETCD_BIN_DIR}/etcd
APISERVER_BIN=${KUBE_BIN_DIR}/kube-apiserver
KCM_BIN=${KUBE_BIN_DIR}/kube-controller-manager
KUBECTL_BIN=${KUBE_BIN_DIR}/kubectl

RUN_DIR=${KUBE_RUN_DIR:-/tmp/bundle-adapter-kube}
PKI_DIR=${RUN_DIR}/pki
HOST=127.0.0.1
APISERVER_PORT=${KUBE_APISERVER_PORT:-6443}
ETCD_CLIENT_PORT=${KUBE_ETCD_CLIENT_PORT:-12379}
ETCD_PEER_PORT=${KUBE_ETCD_PEER_PORT:-12380}
KCM_PORT=${KUBE_KCM_PORT:-10257}
SERVER_URL=https://${HOST}:${APISERVER_PORT}
ADMIN_KUBECONFIG=${RUN_DIR}/admin.kubeconfig
KCM_KUBECONFIG=${RUN_DIR}/controller-manager.kubeconfig
TIMEOUT=${KUBE_START_TIMEOUT:-90}

# The staging modules k8s.io/kubernetes requires at v0.0.0 (it replaces them
# with ./staging/src/... in its own go.mod, which a dependent module ignores).
STAGING_MODULES=(
	api apiextensions-apiserver apimachinery apiserver cli-runtime client-go
	cloud-provider cluster-bootstrap code-generator component-base
	component-helpers controller-manager cri-api cri-client cri-streaming
	csi-translation-lib dynamic-resource-allocation endpointslice externaljwt
	kms kube-aggregator kube-controller-manager kube-proxy kube-scheduler
	kubectl kubelet metrics mount-utils pod-security-admission
	sample-apiserver sample-cli-plugin sample-controller streaming
)
# etcd's server module replaces its sibling modules with ../ paths.
ETCD_SIBLINGS=(go.etcd.io/etcd/api/v3 go.etcd.io/etcd/client/pkg/v3
	go.etcd.io/etcd/client/v3 go.etcd.io/etcd/pkg/v3)

die() { echo "kube.sh: error: $*" >&2; exit 1; }
log() { echo "kube.sh: $*" >&2; }

# ---------------------------------------------------------------- build

cmd_path() { echo "${KUBE_BIN_DIR}"; }

go_env() {
	export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-local}
}

# build_etcd builds the etcd server from a wrapper module in the cache that
# pins etcd's sibling modules at the same version (its go.mod replaces them
# with relative paths, so `go install pkg@version` refuses it).
build_etcd() {
	[[ -x "${ETCD_BIN}" ]] && return
	local src=${ETCD_BIN_DIR}/src start=${SECONDS} m
	rm -rf "${src}"
	mkdir -p "${src}"
	{
		echo "module bundle-adapter.local/etcd-wrapper"
		echo
		echo "go 1.26.0"
		echo
		echo "require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}"
		echo
		for m in "${ETCD_SIBLINGS[@]}"; do echo "replace ${m} => ${m} ${ETCD_VERSION}"; done
	} >"${src}/go.mod"
	log "building go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
	(
		cd "${src}"
		go_env
		go mod download go.etcd.io/etcd/server/v3 >&2
		go build -trimpath -ldflags='-s -w' ${KUBE_BUILD_PARALLEL:+-p "${KUBE_BUILD_PARALLEL}"} \
			-o "${ETCD_BIN}.tmp" go.etcd.io/etcd/server/v3 >&2
	) || die "etcd build failed (see output above)"
	mv "${ETCD_BIN}.tmp" "${ETCD_BIN}"
	log "etcd built in $((SECONDS - start))s"
}

# build_kube builds kube-apiserver, kube-controller-manager and kubectl in one
# go build (shared compilation) from a wrapper module that pins every staging
# module to KUBE_STAGING_VERSION with replace directives.
build_kube() {
	[[ -x "${APISERVER_BIN}" && -x "${KCM_BIN}" && -x "${KUBECTL_BIN}" ]] && return
	local src=${KUBE_BIN_DIR}/src start=${SECONDS} m
	rm -rf "${src}"
	mkdir -p "${src}"
	{
		echo "module bundle-adapter.local/kube-wrapper"
		echo
		echo "go 1.26.0"
		echo
		echo "require k8s.io/kubernetes ${KUBE_VERSION}"
		echo
		echo "replace ("
		for m in "${STAGING_MODULES[@]}"; do echo "	k8s.io/${m} => k8s.io/${m} ${KUBE_STAGING_VERSION}"; done
		echo ")"
	} >"${src}/go.mod"
	local minor=${KUBE_VERSION#v1.}
	minor=${minor%%.*}
	local ldflags="-s -w" p
	for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X ${p}.gitVersion=${KUBE_VERSION} -X ${p}.gitMajor=1 -X ${p}.gitMinor=${minor}"
		ldflags+=" -X ${p}.gitTreeState=clean -X ${p}.buildDate=1970-01-01T00:00:00Z"
	done
	local pkgs=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
		k8s.io/kubernetes/cmd/kubectl)
	log "building kube-apiserver, kube-controller-manager, kubectl from k8s.io/kubernetes@${KUBE_VERSION} (takes many minutes when cold)"
	(
		cd "${src}"
		go_env
		go mod download k8s.io/kubernetes >&2
		mkdir -p "${KUBE_BIN_DIR}/.out"
		go build -trimpath -ldflags="${ldflags}" ${KUBE_BUILD_PARALLEL:+-p "${KUBE_BUILD_PARALLEL}"} \
			-o "${KUBE_BIN_DIR}/.out/" "${pkgs[@]}" >&2
	) || die "kubernetes build failed (see output above)"
	for p in kube-apiserver kube-controller-manager kubectl; do
		mv "${KUBE_BIN_DIR}/.out/${p}" "${KUBE_BIN_DIR}/${p}"
	done
	rmdir "${KUBE_BIN_DIR}/.out" 2>/dev/null || true
	log "kubernetes binaries built in $((SECONDS - start))s"
}

cmd_build() {
	command -v go >/dev/null || die "go not found in PATH"
	# One build at a time (two test runs may ask together); a waiting build
	# finds the binaries built and skips.
	mkdir -p "${CACHE_ROOT}"
	exec 9>"${CACHE_ROOT}/build.lock"
	flock 9
	build_etcd
	build_kube
	printf '%s\n' "${ETCD_BIN}" "${APISERVER_BIN}" "${KCM_BIN}" "${KUBECTL_BIN}"
}

# ---------------------------------------------------------------- PKI

# openssl_cert signs a client or server certificate with the given CA.
#   openssl_cert NAME CA SUBJECT EXTENSIONS
openssl_cert() {
	local name=$1 ca=$2 subj=$3 ext=$4 dir=${PKI_DIR}
	openssl ecparam -name prime256v1 -genkey -noout -out "${dir}/${name}.key" 2>/dev/null
	openssl req -new -key "${dir}/${name}.key" -subj "${subj}" -out "${dir}/${name}.csr"
	printf '[v3]\n%s\n' "${ext}" >"${dir}/${name}.ext"
	openssl x509 -req -in "${dir}/${name}.csr" -CA "${dir}/${ca}.crt" -CAkey "${dir}/${ca}.key" \
		-CAcreateserial -days 3650 -sha256 -extfile "${dir}/${name}.ext" -extensions v3 \
		-out "${dir}/${name}.crt" 2>/dev/null
	rm -f "${dir}/${name}.csr" "${dir}/${name}.ext"
}

openssl_ca() {
	local name=$1 cn=$2 dir=${PKI_DIR}
	openssl ecparam -name prime256v1 -genkey -noout -out "${dir}/${name}.key" 2>/dev/null
	openssl req -x509 -new -key "${dir}/${name}.key" -subj "/CN=${cn}" -days 3650 -sha256 \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
		-out "${dir}/${name}.crt"
}

# ensure_pki generates the CA, serving, client, front-proxy and
# service-account material once; later starts reuse it so kubeconfigs stay valid.
ensure_pki() {
	[[ -f "${PKI_DIR}/.complete" ]] && return
	command -v openssl >/dev/null || die "openssl not found in PATH (Debian package openssl)"
	rm -rf "${PKI_DIR}"
	mkdir -p "${PKI_DIR}"
	chmod 700 "${PKI_DIR}"
	log "generating PKI in ${PKI_DIR}"
	local client="basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
	openssl_ca ca bundle-adapter-kube-ca
	openssl_ca front-proxy-ca bundle-adapter-front-proxy-ca
	openssl_cert apiserver ca "/CN=kube-apiserver" "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
	openssl_cert admin ca "/O=system:masters/CN=kubernetes-admin" "${client}"
	# system:masters: the controllers run with this identity rather than with
	# per-controller service-account tokens, which costs ~5 s at start-up.
	openssl_cert controller-manager ca "/O=system:masters/CN=system:kube-controller-manager" "${client}"
	openssl_cert front-proxy-client front-proxy-ca "/CN=front-proxy-client" "${client}"
	openssl genrsa -out "${PKI_DIR}/sa.key" 2048 2>/dev/null
	openssl rsa -in "${PKI_DIR}/sa.key" -pubout -out "${PKI_DIR}/sa.pub" 2>/dev/null
	chmod 600 "${PKI_DIR}"/*.key
	touch "${PKI_DIR}/.complete"
}

# write_kubeconfig writes a kubeconfig with embedded certificates.
#   write_kubeconfig FILE CERT_NAME USER
write_kubeconfig() {
	local file=$1 cert=$2 user=$3
	(
		umask 077
		cat >"${file}.tmp" <<KCFG
apiVersion: v1
kind: Config
clusters:
- name: bundle-adapter
  cluster:
    server: ${SERVER_URL}
    certificate-authority-data: $(base64 -w0 "${PKI_DIR}/ca.crt")
users:
- name: ${user}
  user:
    client-certificate-data: $(base64 -w0 "${PKI_DIR}/${cert}.crt")
    client-key-data: $(base64 -w0 "${PKI_DIR}/${cert}.key")
contexts:
- name: bundle-adapter
  context:
    cluster: bundle-adapter
    user: ${user}
current-context: bundle-adapter
KCFG
		mv "${file}.tmp" "${file}"
	)
}

# ---------------------------------------------------------------- processes

pid_file() { echo "${RUN_DIR}/$1.pid"; }
log_file() { echo "${RUN_DIR}/$1.log"; }

# running prints the PID of component $1 when its PID file names a live
# process of the expected binary.
running() {
	local f pid
	f=$(pid_file "$1")
	[[ -f "${f}" ]] || return 1
	pid=$(<"${f}")
	[[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null || return 1
	grep -qa -- "$1" "/proc/${pid}/cmdline" 2>/dev/null || return 1
	echo "${pid}"
}

port_free() {
	! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# launch starts component NAME as BINARY ARGS... in the background.
launch() {
	local name=$1 bin=$2
	shift 2
	[[ -x "${bin}" ]] || die "no ${name} binary at ${bin}; run: $0 build"
	nohup "${bin}" "$@" </dev/null >"$(log_file "${name}")" 2>&1 &
	echo $! >"$(pid_file "${name}")"
}

# wait_for NAME CHECK... polls CHECK until it succeeds, failing early when the
# component's process exits.
wait_for() {
	local name=$1 pid
	shift
	pid=$(<"$(pid_file "${name}")")
	local deadline=$((SECONDS + TIMEOUT))
	until "$@" >/dev/null 2>&1; do
		if ! kill -0 "${pid}" 2>/dev/null; then
			tail -n 30 "$(log_file "${name}")" >&2 || true
			die "${name} exited during start-up, log: $(log_file "${name}")"
		fi
		((SECONDS < deadline)) || die "${name} not ready after ${TIMEOUT}s, log: $(log_file "${name}")"
		sleep 0.2
	done
}

etcd_healthy() { curl -fsS "http://${HOST}:${ETCD_CLIENT_PORT}/health" | grep -q '"health":"true"'; }

apiserver_ready() {
	curl -fsS --cacert "${PKI_DIR}/ca.crt" --cert "${PKI_DIR}/admin.crt" --key "${PKI_DIR}/admin.key" \
		"${SERVER_URL}/readyz" | grep -qx ok
}

kcm_healthy() { curl -fsSk "https://${HOST}:${KCM_PORT}/healthz" | grep -qx ok; }

start_etcd() {
	local pid
	if pid=$(running etcd); then
		log "etcd already running (pid ${pid})"
		return
	fi
	if ! port_free "${ETCD_CLIENT_PORT}" || ! port_free "${ETCD_PEER_PORT}"; then
		die "etcd port ${ETCD_CLIENT_PORT} or ${ETCD_PEER_PORT} in use (set KUBE_ETCD_CLIENT_PORT/KUBE_ETCD_PEER_PORT)"
	fi
	mkdir -p "${RUN_DIR}/etcd"
	chmod 700 "${RUN_DIR}/etcd"
	# --unsafe-no-fsync: a throwaway test cluster trades durability for speed.
	launch etcd "${ETCD_BIN}" \
		--name=bundle-adapter \
		--data-dir="${RUN_DIR}/etcd" \
		--listen-client-urls="http://${HOST}:${ETCD_CLIENT_PORT}" \
		--advertise-client-urls="http://${HOST}:${ETCD_CLIENT_PORT}" \
		--listen-peer-urls="http://${HOST}:${ETCD_PEER_PORT}" \
		--initial-advertise-peer-urls="http://${HOST}:${ETCD_PEER_PORT}" \
		--initial-cluster="bundle-adapter=http://${HOST}:${ETCD_PEER_PORT}" \
		--unsafe-no-fsync \
		--log-level=warn
	wait_for etcd etcd_healthy
	log "etcd started (pid $(<"$(pid_file etcd)")) on ${HOST}:${ETCD_CLIENT_PORT}"
}

start_apiserver() {
	local pid
	if pid=$(running kube-apiserver); then
		log "kube-apiserver already running (pid ${pid})"
		return
	fi
	port_free "${APISERVER_PORT}" || die "port ${APISERVER_PORT} in use (set KUBE_APISERVER_PORT)"
	local p=${PKI_DIR}
	launch kube-apiserver "${APISERVER_BIN}" \
		--etcd-servers="http://${HOST}:${ETCD_CLIENT_PORT}" \
		--bind-address="${HOST}" \
		--advertise-address="${HOST}" \
		--secure-port="${APISERVER_PORT}" \
		--cert-dir="${RUN_DIR}/kube-apiserver-certs" \
		--tls-cert-file="${p}/apiserver.crt" \
		--tls-private-key-file="${p}/apiserver.key" \
		--client-ca-file="${p}/ca.crt" \
		--service-account-key-file="${p}/sa.pub" \
		--service-account-signing-key-file="${p}/sa.key" \
		--service-account-issuer=https://kubernetes.default.svc.cluster.local \
		--service-cluster-ip-range=10.0.0.0/24 \
		--endpoint-reconciler-type=none \
		--authorization-mode=RBAC \
		--allow-privileged=true \
		--kubelet-preferred-address-types=InternalIP,Hostname \
		--requestheader-client-ca-file="${p}/front-proxy-ca.crt" \
		--requestheader-allowed-names=front-proxy-client \
		--requestheader-username-headers=X-Remote-User \
		--requestheader-group-headers=X-Remote-Group \
		--requestheader-extra-headers-prefix=X-Remote-Extra- \
		--proxy-client-cert-file="${p}/front-proxy-client.crt" \
		--proxy-client-key-file="${p}/front-proxy-client.key" \
		--profiling=false \
		--v="${KUBE_LOG_LEVEL:-1}"
	wait_for kube-apiserver apiserver_ready
	log "kube-apiserver started (pid $(<"$(pid_file kube-apiserver)")) at ${SERVER_URL}"
}

start_kcm() {
	local pid
	if pid=$(running kube-controller-manager); then
		log "kube-controller-manager already running (pid ${pid})"
		return
	fi
	port_free "${KCM_PORT}" || die "port ${KCM_PORT} in use (set KUBE_KCM_PORT)"
	local p=${PKI_DIR}
	launch kube-controller-manager "${KCM_BIN}" \
		--kubeconfig="${KCM_KUBECONFIG}" \
		--authentication-kubeconfig="${KCM_KUBECONFIG}" \
		--authorization-kubeconfig="${KCM_KUBECONFIG}" \
		--bind-address="${HOST}" \
		--secure-port="${KCM_PORT}" \
		--cert-dir="${RUN_DIR}/kube-controller-manager-certs" \
		--leader-elect=false \
		--use-service-account-credentials=false \
		--service-account-private-key-file="${p}/sa.key" \
		--root-ca-file="${p}/ca.crt" \
		--cluster-signing-cert-file="${p}/ca.crt" \
		--cluster-signing-key-file="${p}/ca.key" \
		--service-cluster-ip-range=10.0.0.0/24 \
		--profiling=false \
		--v="${KUBE_LOG_LEVEL:-1}"
	wait_for kube-controller-manager kcm_healthy
	log "kube-controller-manager started (pid $(<"$(pid_file kube-controller-manager)"))"
}

kctl() { "${KUBECTL_BIN}" --kubeconfig="${ADMIN_KUBECONFIG}" "$@"; }

# crd_file finds the AppliedManifestWork CRD in the module cache (downloading
# open-cluster-management.io/api when missing), so the repo carries no copy.
crd_file() {
	local dir
	mkdir -p "${CACHE_ROOT}"
	dir=$(cd "${CACHE_ROOT}" && GOWORK=off GOFLAGS='' go mod download -json \
		"open-cluster-management.io/api@${OCM_API_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') ||
		die "cannot download open-cluster-management.io/api@${OCM_API_VERSION}"
	local f=${dir}/work/v1/0000_01_work.open-cluster-management.io_appliedmanifestworks.crd.yaml
	[[ -f "${f}" ]] || die "AppliedManifestWork CRD not found at ${f}"
	echo "${f}"
}

install_crds() {
	local crd
	crd=$(crd_file)
	kctl apply --server-side --force-conflicts -f "${crd}" >/dev/null
	kctl wait --for=condition=Established --timeout="${TIMEOUT}s" \
		crd/appliedmanifestworks.work.open-cluster-management.io >/dev/null
	log "AppliedManifestWork CRD installed"
}

# wait_default_sa waits for the service-account controller so that pods can
# be created in the default namespace right away.
wait_default_sa() {
	local deadline=$((SECONDS + TIMEOUT))
	until kctl get serviceaccount default -n default >/dev/null 2>&1; do
		((SECONDS < deadline)) || die "default service account not created after ${TIMEOUT}s"
		sleep 0.2
	done
}

cmd_start() {
	[[ -x "${ETCD_BIN}" && -x "${APISERVER_BIN}" && -x "${KCM_BIN}" && -x "${KUBECTL_BIN}" ]] ||
		die "binaries missing under ${KUBE_BIN_DIR} / ${ETCD_BIN_DIR}; run: $0 build"
	command -v curl >/dev/null || die "curl not found in PATH"
	local start=${SECONDS} any=0 c
	for c in etcd kube-apiserver kube-controller-manager; do
		running "${c}" >/dev/null && any=1
	done
	if [[ "${KUBE_FRESH:-0}" == 1 ]]; then
		((any == 0)) || die "KUBE_FRESH=1 but components are running; run: $0 stop"
		log "KUBE_FRESH=1: wiping ${RUN_DIR}"
		rm -rf "${RUN_DIR}"
	fi
	mkdir -p "${RUN_DIR}"
	chmod 700 "${RUN_DIR}"
	ensure_pki
	write_kubeconfig "${ADMIN_KUBECONFIG}" admin kubernetes-admin
	write_kubeconfig "${KCM_KUBECONFIG}" controller-manager system:kube-controller-manager
	start_etcd
	start_apiserver
	start_kcm
	install_crds
	wait_default_sa
	log "cluster ready in $((SECONDS - start))s"
	print_env
}

print_env() {
	cat <<ENV
KUBECONFIG=${ADMIN_KUBECONFIG}
KUBE_SERVER_URL=${SERVER_URL}
KUBECTL=${KUBECTL_BIN}
ENV
}

cmd_env() { print_env | sed 's/^/export /'; }

stop_component() {
	local name=$1 pid
	if ! pid=$(running "${name}"); then
		rm -f "$(pid_file "${name}")"
		return
	fi
	kill -TERM "${pid}"
	local deadline=$((SECONDS + ${KUBE_STOP_TIMEOUT:-20}))
	while kill -0 "${pid}" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			log "${name} (pid ${pid}) ignored SIGTERM, sending SIGKILL"
			kill -KILL "${pid}" 2>/dev/null || true
		fi
		sleep 0.1
	done
	rm -f "$(pid_file "${name}")"
	log "stopped ${name} (pid ${pid})"
}

cmd_stop() {
	local c
	for c in kube-controller-manager kube-apiserver etcd; do
		stop_component "${c}"
	done
}

cmd_status() {
	local c pid rc=0
	for c in etcd kube-apiserver kube-controller-manager; do
		if pid=$(running "${c}"); then
			echo "${c}: running pid=${pid} log=$(log_file "${c}")"
		else
			echo "${c}: stopped"
			rc=3
		fi
	done
	if ((rc == 0)); then
		apiserver_ready && echo "kube-apiserver: ready at ${SERVER_URL}" || echo "kube-apiserver: not ready"
		print_env
	fi
	return "${rc}"
}

cmd_kubectl() {
	[[ -x "${KUBECTL_BIN}" ]] || die "no kubectl at ${KUBECTL_BIN}; run: $0 build"
	[[ -f "${ADMIN_KUBECONFIG}" ]] || die "no kubeconfig at ${ADMIN_KUBECONFIG}; run: $0 start"
	exec "${KUBECTL_BIN}" --kubeconfig="${ADMIN_KUBECONFIG}" "$@"
}

main() {
	local cmd=${1:-}
	[[ -n "${cmd}" ]] || die "missing command (build|path|start|stop|status|env|kubectl)"
	shift
	case "${cmd}" in
	build) cmd_build "$@" ;;
	path) cmd_path "$@" ;;
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	status) cmd_status "$@" ;;
	env) cmd_env "$@" ;;
	kubectl) cmd_kubectl "$@" ;;
	*) die "unknown command ${cmd}" ;;
	esac
}

main "$@"
