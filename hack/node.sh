#!/usr/bin/env bash
# hack/node.sh makes the control plane of hack/kube.sh a cluster that runs
# pods: a kube-scheduler and a kubelet on this host, with containerd and runc
# from Debian's packages, images imported without a registry (a pause image
# built here, the project's image from `make image`). Pods use hostNetwork,
# so that their traffic stays on loopback, or the pod network, a bridge this
# script makes (podnode0, 10.88.0.1/24, no masquerading, nothing routed off
# the machine), whose address is the node's (the kubelet refuses a loopback
# node IP): pods there reach the host's services only where something
# listens on 10.88.0.1 (the e2e tests' forwarders, stacktest.Forwarder).
# The node is tainted bundle-adapter.io/node=pods:NoSchedule: only pods
# that tolerate it run (no image is ever pulled from a registry).
#
# Usage: hack/node.sh <command> [args]
#   build          build kube-scheduler and kubelet (cached by version, beside
#                  hack/kube.sh's binaries), a pause binary, and install
#                  containerd, runc, CNI plugins and iptables when missing
#   up             hack/kube.sh start, then the bridge, containerd, the pause
#                  image, the scheduler and the kubelet; waits for the node Ready
#   down           stop kubelet (pods first), scheduler, containerd, and undo
#                  what the kubelet did to the host (sysctls, iptables chains,
#                  cgroups, mounts) and the bridge; the control plane stays
#                  (hack/kube.sh stop takes it down)
#   load REF       import the podman image REF (default: hack/image.sh name)
#                  into the node's containerd
#   status         print whether each node component runs (exit 3 when not)
#   check          exit 0 when a node can come up here, else say why (exit 1)
#   env            print export lines (KUBECONFIG, KUBECTL, NODE_*; NODE_APISERVER
#                  is where a hostNetwork pod reaches the API server: no kube-proxy)
#   ctr ARGS       ctr against the node's containerd (namespace k8s.io)
#
# Every step says what it does and how long it took. Must run as root
# (containerd, cgroups, mounts, the bridge, iptables); one node per machine.
#
# Environment (defaults in brackets; the version and cache variables are
# hack/kube.sh's):
#   KUBE_VERSION            [v1.36.3]  k8s.io/kubernetes version
#   KUBE_STAGING_VERSION    [v0.36.3]  version of every k8s.io staging module
#   BUNDLE_ADAPTER_CACHE    [$HOME/.cache/bundle-adapter]
#   KUBE_RUN_DIR            [/tmp/bundle-adapter-kube] the control plane's (PKI)
#   NODE_RUN_DIR            [/tmp/bundle-adapter-node] containerd state, kubelet
#                           root, configs, logs, PID files, saved sysctls
#   NODE_NAME               [podnode]
#   NODE_BRIDGE             [podnode0]    NODE_CIDR [10.88.0.0/24]
#   NODE_KUBELET_PORT       [20250]  NODE_SCHEDULER_PORT [20259]
#   NODE_INSTALL            [1]      0: never apt-get install
#   NODE_START_TIMEOUT      [90]     seconds to wait for each component
set -euo pipefail
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
HACK=$(dirname "${SELF}")

KUBE_VERSION=${KUBE_VERSION:-v1.36.3}
KUBE_STAGING_VERSION=${KUBE_STAGING_VERSION:-v0.36.3}
CACHE_ROOT=${BUNDLE_ADAPTER_CACHE:-${HOME}/.cache/bundle-adapter}/kube
KUBE_BIN_DIR=${CACHE_ROOT}/${KUBE_VERSION}
# A subdir of its own: hack/kube.sh's binaries and wrapper stay as they are.
NODE_BIN_DIR=${KUBE_BIN_DIR}/node
SCHEDULER_BIN=${NODE_BIN_DIR}/kube-scheduler
KUBELET_BIN=${NODE_BIN_DIR}/kubelet
PAUSE_BIN=${CACHE_ROOT}/pause/pause
PAUSE_REF=localhost/bundle-adapter-pause:1
KUBECTL_BIN=${KUBE_BIN_DIR}/kubectl

KUBE_RUN=${KUBE_RUN_DIR:-/tmp/bundle-adapter-kube}
PKI_DIR=${KUBE_RUN}/pki
ADMIN_KUBECONFIG=${KUBE_RUN}/admin.kubeconfig
SERVER_URL=https://127.0.0.1:${KUBE_APISERVER_PORT:-6443}
RUN_DIR=${NODE_RUN_DIR:-/tmp/bundle-adapter-node}
NODE_NAME=${NODE_NAME:-podnode}
BRIDGE=${NODE_BRIDGE:-podnode0}
CIDR=${NODE_CIDR:-10.88.0.0/24}
NODE_IP=${CIDR%.*}.1
KUBELET_PORT=${NODE_KUBELET_PORT:-20250}
SCHEDULER_PORT=${NODE_SCHEDULER_PORT:-20259}
CONTAINERD_SOCK=${RUN_DIR}/containerd/containerd.sock
TIMEOUT=${NODE_START_TIMEOUT:-90}
# Only pods that tolerate it run here: the Jobs other tests have the agent
# apply (busybox from a registry) stay Pending, as on the bare control plane.
NODE_TAINT=bundle-adapter.io/node=pods:NoSchedule
# The kernel tunables the kubelet sets whatever its configuration says.
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
	kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
CNI_PLUGINS=(bridge host-local loopback portmap)
APT_PACKAGES=(containerd runc containernetworking-plugins iptables)

die() { echo "node.sh: error: $*" >&2; exit 1; }
log() { echo "node.sh: $*" >&2; }

# step NAME CMD...: runs CMD, saying what it does and how long it took.
step() {
	local name=$1 start=${SECONDS}
	shift
	log "${name} ..."
	"$@"
	log "${name}: done in $((SECONDS - start))s"
}

need_root() { ((EUID == 0)) || die "$1 needs root (containerd, cgroups, mounts, the bridge, iptables)"; }

# ---------------------------------------------------------------- build

go_env() {
	export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0
}

# kube_ldflags: the version stamps hack/kube.sh gives its binaries, so
# every binary of one KUBE_VERSION says the same version.
kube_ldflags() {
	local minor=${KUBE_VERSION#v1.} flags="-s -w" p
	minor=${minor%%.*}
	for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		flags+=" -X ${p}.gitVersion=${KUBE_VERSION} -X ${p}.gitMajor=1 -X ${p}.gitMinor=${minor}"
		flags+=" -X ${p}.gitTreeState=clean -X ${p}.buildDate=1970-01-01T00:00:00Z"
	done
	echo "${flags}"
}

# build_node builds kube-scheduler and kubelet in one go build, in a wrapper
# module of its own whose go.mod and go.sum are hack/kube.sh's (its wrapper
# pins every staging module), so both builds resolve the same module graph
# and share the Go build cache.
build_node() {
	[[ -x "${SCHEDULER_BIN}" && -x "${KUBELET_BIN}" ]] && return
	[[ -f "${KUBE_BIN_DIR}/src/go.mod" ]] || die "no wrapper module at ${KUBE_BIN_DIR}/src (hack/kube.sh build writes it)"
	local src=${NODE_BIN_DIR}/src
	rm -rf "${src}" "${NODE_BIN_DIR}/.out"
	mkdir -p "${src}" "${NODE_BIN_DIR}/.out"
	sed 's#kube-wrapper$#node-wrapper#' "${KUBE_BIN_DIR}/src/go.mod" >"${src}/go.mod"
	[[ -f "${KUBE_BIN_DIR}/src/go.sum" ]] && cp "${KUBE_BIN_DIR}/src/go.sum" "${src}/go.sum"
	log "building kube-scheduler, kubelet from k8s.io/kubernetes@${KUBE_VERSION} (many minutes when cold)"
	(
		cd "${src}"
		go_env
		go build -trimpath -ldflags="$(kube_ldflags)" ${KUBE_BUILD_PARALLEL:+-p "${KUBE_BUILD_PARALLEL}"} \
			-o "${NODE_BIN_DIR}/.out/" k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet >&2
	) || die "kube-scheduler/kubelet build failed (see output above)"
	mv "${NODE_BIN_DIR}/.out/kube-scheduler" "${SCHEDULER_BIN}"
	mv "${NODE_BIN_DIR}/.out/kubelet" "${KUBELET_BIN}"
	rmdir "${NODE_BIN_DIR}/.out"
}

# build_pause builds the sandbox's process: it sleeps until SIGTERM or
# SIGINT and reaps children (PID 1 of a pod). Static, no registry needed.
build_pause() {
	[[ -x "${PAUSE_BIN}" ]] && return
	local src=${CACHE_ROOT}/pause/src
	rm -rf "${src}"
	mkdir -p "${src}"
	printf 'module bundle-adapter.local/pause\n\ngo 1.26.0\n' >"${src}/go.mod"
	cat >"${src}/main.go" <<'EOF'
// Command pause is a pod sandbox's process: it waits for SIGTERM or
// SIGINT and reaps the children it inherits as PID 1.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
EOF
	(cd "${src}" && go_env && go build -trimpath -ldflags='-s -w' -o "${PAUSE_BIN}.tmp" .) ||
		die "pause build failed"
	mv "${PAUSE_BIN}.tmp" "${PAUSE_BIN}"
}

# install_packages installs containerd, runc, the CNI plugins and iptables
# from Debian's packages when any is missing.
install_packages() {
	local missing=()
	command -v containerd >/dev/null || missing+=(containerd)
	command -v runc >/dev/null || missing+=(runc)
	[[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
	command -v iptables >/dev/null || missing+=(iptables)
	((${#missing[@]})) || return 0
	[[ "${NODE_INSTALL:-1}" == 1 ]] || die "${missing[*]} not installed (NODE_INSTALL=0)"
	command -v apt-get >/dev/null || die "${missing[*]} not installed and no apt-get to install them"
	need_root "apt-get install"
	local -x DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "${APT_PACKAGES[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get install -y -q "${APT_PACKAGES[@]}" >/dev/null; } ||
		die "apt-get install ${APT_PACKAGES[*]} failed"
}

cmd_build() {
	command -v go >/dev/null || die "go not found in PATH"
	step "hack/kube.sh build" "${HACK}/kube.sh" build >/dev/null
	# A lock of its own (one node build at a time), not hack/kube.sh's: a
	# kube.sh build waiting on that would wait for this one for nothing.
	exec 9>"${CACHE_ROOT}/node-build.lock"
	flock 9
	step "build kube-scheduler and kubelet (${KUBE_VERSION})" build_node
	step "build pause" build_pause
	exec 9>&-
	step "packages (${APT_PACKAGES[*]})" install_packages
	printf '%s\n' "${SCHEDULER_BIN}" "${KUBELET_BIN}" "${PAUSE_BIN}"
}

# cmd_check says whether a node can come up here, without building.
cmd_check() {
	local why=()
	((EUID == 0)) || why+=("not root")
	[[ -x "${SCHEDULER_BIN}" && -x "${KUBELET_BIN}" && -x "${PAUSE_BIN}" ]] || why+=("not built (hack/node.sh build)")
	command -v containerd >/dev/null && command -v runc >/dev/null && [[ -x /usr/lib/cni/bridge ]] ||
		why+=("containerd, runc or CNI plugins missing (hack/node.sh build installs them)")
	command -v ip >/dev/null || why+=("no ip command (iproute2)")
	if ((${#why[@]})); then
		local IFS=';'
		echo "a node cannot come up here: ${why[*]}"
		return 1
	fi
	echo "a node can come up here (${KUBELET_BIN})"
}

# ---------------------------------------------------------------- processes

pid_file() { echo "${RUN_DIR}/$1.pid"; }
log_file() { echo "${RUN_DIR}/$1.log"; }

running() {
	local f pid
	f=$(pid_file "$1")
	[[ -f "${f}" ]] || return 1
	pid=$(<"${f}")
	[[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null || return 1
	grep -qa -- "$1" "/proc/${pid}/cmdline" 2>/dev/null || return 1
	echo "${pid}"
}

launch() {
	local name=$1 bin=$2
	shift 2
	[[ -x "${bin}" ]] || die "no ${name} binary at ${bin}; run: $0 build"
	nohup "${bin}" "$@" </dev/null >"$(log_file "${name}")" 2>&1 &
	echo $! >"$(pid_file "${name}")"
}

wait_for() {
	local name=$1 pid deadline=$((SECONDS + TIMEOUT))
	shift
	pid=$(<"$(pid_file "${name}")")
	until "$@" >/dev/null 2>&1; do
		if ! kill -0 "${pid}" 2>/dev/null; then
			tail -n 30 "$(log_file "${name}")" >&2 || true
			die "${name} exited during start-up, log: $(log_file "${name}")"
		fi
		((SECONDS < deadline)) || die "${name} not ready after ${TIMEOUT}s, log: $(log_file "${name}")"
		sleep 0.2
	done
}

stop_component() {
	local name=$1 pid
	if ! pid=$(running "${name}"); then
		rm -f "$(pid_file "${name}")"
		return
	fi
	kill -TERM "${pid}"
	local deadline=$((SECONDS + 20))
	while kill -0 "${pid}" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			log "${name} (pid ${pid}) ignored SIGTERM, sending SIGKILL"
			kill -KILL "${pid}" 2>/dev/null || true
		fi
		sleep 0.1
	done
	rm -f "$(pid_file "${name}")"
}

kctl() { "${KUBECTL_BIN}" --kubeconfig="${ADMIN_KUBECONFIG}" "$@"; }
ctr_() { ctr --address "${CONTAINERD_SOCK}" --namespace k8s.io "$@"; }

# ---------------------------------------------------------------- up

# save_sysctls records the tunables the kubelet changes, once per up/down
# cycle (a second up keeps the first saved values).
save_sysctls() {
	[[ -f "${RUN_DIR}/sysctls.saved" ]] && return
	local k
	for k in "${SYSCTLS[@]}"; do
		[[ -e "/proc/sys/${k//.//}" ]] && echo "${k}=$(<"/proc/sys/${k//.//}")"
	done >"${RUN_DIR}/sysctls.saved.tmp"
	mv "${RUN_DIR}/sysctls.saved.tmp" "${RUN_DIR}/sysctls.saved"
}

# make_bridge creates the pod bridge with the node's address (the kubelet's
# node IP and bind address; CNI's bridge plugin finds it present).
make_bridge() {
	if ! ip link show "${BRIDGE}" >/dev/null 2>&1; then
		ip link add "${BRIDGE}" type bridge
	fi
	ip addr show dev "${BRIDGE}" | grep -q "inet ${NODE_IP}/" || ip addr add "${NODE_IP}/${CIDR#*/}" dev "${BRIDGE}"
	ip link set "${BRIDGE}" up
}

write_cni() {
	mkdir -p "${RUN_DIR}/cni/net.d"
	cat >"${RUN_DIR}/cni/net.d/10-podnode.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "podnode",
  "plugins": [
    {"type": "bridge", "bridge": "${BRIDGE}", "isGateway": true, "ipMasq": false,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "${CIDR}", "gateway": "${NODE_IP}"}]],
              "dataDir": "${RUN_DIR}/cni/ipam"}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
}

# write_containerd_config: every path in the run dir. restrict_oom_score_adj:
# root here lacks CAP_SYS_RESOURCE, so the sandbox's -998 cannot be written.
write_containerd_config() {
	local d=${RUN_DIR}/containerd
	mkdir -p "${d}"
	cat >"${d}/config.toml" <<EOF
version = 2
root = "${d}/root"
state = "${d}/state"
[grpc]
  address = "${CONTAINERD_SOCK}"
[ttrpc]
  address = "${CONTAINERD_SOCK}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_REF}"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${RUN_DIR}/cni/net.d"
EOF
}

start_containerd() {
	local pid
	if pid=$(running containerd); then
		log "containerd already running (pid ${pid})"
		return
	fi
	write_cni
	write_containerd_config
	launch containerd "$(command -v containerd)" --config "${RUN_DIR}/containerd/config.toml"
	wait_for containerd ctr_ version
}

# pause_image packs the pause binary as a one-layer OCI image archive by
# hand (layer, config, manifest, index) and imports it, unless present.
pause_image() {
	ctr_ images check "name==${PAUSE_REF}" 2>/dev/null | grep -q complete && return
	local w
	w=$(mktemp -d)
	mkdir -p "${w}/root" "${w}/oci/blobs/sha256"
	cp "${PAUSE_BIN}" "${w}/root/pause"
	tar -c --owner=0 --group=0 --numeric-owner --mtime=@0 -f "${w}/layer.tar" -C "${w}/root" pause
	local layer diff config manifest
	diff=$(sha256sum "${w}/layer.tar" | cut -d' ' -f1)
	layer=${diff}
	cp "${w}/layer.tar" "${w}/oci/blobs/sha256/${layer}"
	printf '{"architecture":"%s","os":"linux","config":{"Entrypoint":["/pause"],"User":"65535:65535"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
		"$(go env GOARCH)" "${diff}" >"${w}/config.json"
	config=$(sha256sum "${w}/config.json" | cut -d' ' -f1)
	cp "${w}/config.json" "${w}/oci/blobs/sha256/${config}"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}' \
		"${config}" "$(stat -c %s "${w}/config.json")" "${layer}" "$(stat -c %s "${w}/layer.tar")" >"${w}/manifest.json"
	manifest=$(sha256sum "${w}/manifest.json" | cut -d' ' -f1)
	cp "${w}/manifest.json" "${w}/oci/blobs/sha256/${manifest}"
	printf '{"imageLayoutVersion":"1.0.0"}' >"${w}/oci/oci-layout"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"1"}}]}' \
		"${manifest}" "$(stat -c %s "${w}/manifest.json")" "${PAUSE_REF}" >"${w}/oci/index.json"
	tar -c -f "${w}/pause.tar" -C "${w}/oci" .
	ctr_ images import "${w}/pause.tar" >/dev/null
	rm -rf "${w}"
	ctr_ images label "${PAUSE_REF}" io.cri-containerd.pinned=pinned >/dev/null 2>&1 || true
}

# node_pki signs the kubelet's client certificate with the control plane's
# CA. It is in system:masters like the controller-manager's (hack/kube.sh):
# the API server runs RBAC without the Node authorizer, and this is a
# throwaway single-node test cluster.
node_pki() {
	local d=${RUN_DIR}/pki
	[[ -f "${d}/.complete" ]] && cmp -s "${d}/ca.crt" "${PKI_DIR}/ca.crt" && return
	rm -rf "${d}"
	mkdir -p "${d}"
	chmod 700 "${d}"
	cp "${PKI_DIR}/ca.crt" "${d}/ca.crt"
	openssl ecparam -name prime256v1 -genkey -noout -out "${d}/kubelet.key" 2>/dev/null
	openssl req -new -key "${d}/kubelet.key" -subj "/O=system:masters/O=system:nodes/CN=system:node:${NODE_NAME}" \
		-out "${d}/kubelet.csr"
	printf '[v3]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' \
		>"${d}/client.ext"
	openssl x509 -req -in "${d}/kubelet.csr" -CA "${PKI_DIR}/ca.crt" -CAkey "${PKI_DIR}/ca.key" -CAcreateserial \
		-days 3650 -sha256 -extfile "${d}/client.ext" -extensions v3 -out "${d}/kubelet.crt" 2>/dev/null
	rm -f "${d}/kubelet.csr" "${d}/client.ext"
	chmod 600 "${d}/kubelet.key"
	(
		umask 077
		cat >"${RUN_DIR}/kubelet.kubeconfig" <<KCFG
apiVersion: v1
kind: Config
clusters:
- name: bundle-adapter
  cluster: {server: "${SERVER_URL}", certificate-authority: "${d}/ca.crt"}
users:
- name: kubelet
  user: {client-certificate: "${d}/kubelet.crt", client-key: "${d}/kubelet.key"}
contexts:
- name: bundle-adapter
  context: {cluster: bundle-adapter, user: kubelet}
current-context: bundle-adapter
KCFG
	)
	touch "${d}/.complete"
}

start_scheduler() {
	local pid
	if pid=$(running kube-scheduler); then
		log "kube-scheduler already running (pid ${pid})"
		return
	fi
	launch kube-scheduler "${SCHEDULER_BIN}" \
		--kubeconfig="${ADMIN_KUBECONFIG}" \
		--authentication-kubeconfig="${ADMIN_KUBECONFIG}" \
		--authorization-kubeconfig="${ADMIN_KUBECONFIG}" \
		--bind-address=127.0.0.1 --secure-port="${SCHEDULER_PORT}" \
		--leader-elect=false --profiling=false --v=1
	wait_for kube-scheduler curl -fsSk "https://127.0.0.1:${SCHEDULER_PORT}/healthz"
}

# write_kubelet_config: cgroupfs on this v1/v2 hybrid (failCgroupV1: false),
# oomScoreAdj 0 and no rlimit raising (no CAP_SYS_RESOURCE), eviction at 1 %
# of a shared disk, the kubelet API on the bridge address only.
write_kubelet_config() {
	cat >"${RUN_DIR}/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: ${NODE_IP}
port: ${KUBELET_PORT}
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $((KUBELET_PORT - 2))
cgroupDriver: cgroupfs
failCgroupV1: false
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
oomScoreAdj: 0
failSwapOn: false
containerRuntimeEndpoint: unix://${CONTAINERD_SOCK}
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
  x509: {clientCAFile: ${RUN_DIR}/pki/ca.crt}
authorization: {mode: AlwaysAllow}
evictionHard: {memory.available: "1%", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
resolvConf: /etc/resolv.conf
serializeImagePulls: false
registerNode: true
syncFrequency: 5s
fileCheckFrequency: 5s
staticPodPath: ""
podLogsDir: ${RUN_DIR}/pod-logs
EOF
}

start_kubelet() {
	local pid
	if pid=$(running kubelet); then
		log "kubelet already running (pid ${pid})"
		return
	fi
	write_kubelet_config
	mkdir -p "${RUN_DIR}/kubelet"
	launch kubelet "${KUBELET_BIN}" \
		--config="${RUN_DIR}/kubelet-config.yaml" \
		--kubeconfig="${RUN_DIR}/kubelet.kubeconfig" \
		--root-dir="${RUN_DIR}/kubelet" \
		--cert-dir="${RUN_DIR}/kubelet-pki" \
		--hostname-override="${NODE_NAME}" \
		--node-ip="${NODE_IP}" \
		--register-with-taints="${NODE_TAINT}" \
		--v=1
	wait_for kubelet node_ready
}

node_ready() {
	[[ $(kctl get node "${NODE_NAME}" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}') == True ]]
}

cmd_up() {
	need_root up
	local why
	why=$(cmd_check) || die "${why}"
	local start=${SECONDS}
	mkdir -p "${RUN_DIR}"
	chmod 700 "${RUN_DIR}"
	step "control plane (hack/kube.sh start)" "${HACK}/kube.sh" start >/dev/null
	step "save sysctls" save_sysctls
	step "bridge ${BRIDGE} ${NODE_IP}" make_bridge
	step "containerd" start_containerd
	step "pause image ${PAUSE_REF}" pause_image
	step "kubelet credentials" node_pki
	step "kube-scheduler" start_scheduler
	step "kubelet, node ${NODE_NAME} Ready" start_kubelet
	log "node up in $((SECONDS - start))s"
	print_env
}

# ---------------------------------------------------------------- down

# delete_pods asks the API server to delete every pod on the node and waits
# a while, so their containers stop gracefully before the kubelet does.
delete_pods() {
	running kubelet >/dev/null || return 0
	kctl delete pods --all-namespaces --field-selector "spec.nodeName=${NODE_NAME}" --wait=true --timeout=60s \
		>/dev/null 2>&1 || log "pods not all deleted in 60s (containerd's shutdown stops them)"
}

# stop_containers stops what containerd still runs (its shims outlive it).
stop_containers() {
	running containerd >/dev/null || return 0
	local id
	for id in $(ctr_ tasks ls -q 2>/dev/null); do
		ctr_ tasks kill -s SIGKILL "${id}" >/dev/null 2>&1 || true
	done
	sleep 1
	for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "${id}" >/dev/null 2>&1 || true; done
	for id in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers delete "${id}" >/dev/null 2>&1 || true; done
}

unmount_all() {
	local m
	# Deepest first.
	for m in $(awk -v d="${RUN_DIR}/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r); do
		umount -l "${m}" 2>/dev/null || log "cannot unmount ${m}"
	done
}

# remove_cgroups removes /kubepods (deepest first) in every hierarchy.
remove_cgroups() {
	local d
	for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods /sys/fs/cgroup/unified/kubepods; do
		[[ -d "${d}" ]] || continue
		find "${d}" -depth -type d -exec rmdir {} + 2>/dev/null || log "cannot remove every cgroup under ${d}"
	done
}

# remove_iptables removes the chains the kubelet creates (KUBE-FIREWALL,
# KUBE-KUBELET-CANARY, KUBE-IPTABLES-HINT, any other KUBE-*) and the jumps
# to them, in IPv4 and IPv6.
remove_iptables() {
	local ipt table chain rule
	for ipt in iptables ip6tables; do
		command -v "${ipt}" >/dev/null || continue
		for table in filter nat mangle; do
			"${ipt}" -t "${table}" -S >/dev/null 2>&1 || continue
			while read -r rule; do
				# shellcheck disable=SC2086 # the rule's words as iptables printed them
				"${ipt}" -t "${table}" ${rule/-A/-D} 2>/dev/null || true
			done < <("${ipt}" -t "${table}" -S | grep -E '^-A [A-Z]+ .*-j KUBE-' || true)
			for chain in $("${ipt}" -t "${table}" -S | awk '/^-N KUBE-/ {print $2}'); do
				"${ipt}" -t "${table}" -F "${chain}" 2>/dev/null || true
			done
			for chain in $("${ipt}" -t "${table}" -S | awk '/^-N KUBE-/ {print $2}'); do
				"${ipt}" -t "${table}" -X "${chain}" 2>/dev/null || log "cannot remove ${ipt} -t ${table} ${chain}"
			done
		done
	done
}

restore_sysctls() {
	[[ -f "${RUN_DIR}/sysctls.saved" ]] || return 0
	local kv
	while read -r kv; do
		echo "${kv#*=}" >"/proc/sys/$(tr . / <<<"${kv%%=*}")" || log "cannot restore ${kv}"
	done <"${RUN_DIR}/sysctls.saved"
	rm -f "${RUN_DIR}/sysctls.saved"
}

remove_bridge() {
	ip link show "${BRIDGE}" >/dev/null 2>&1 || return 0
	ip link delete "${BRIDGE}"
	rm -rf "${RUN_DIR}/cni/ipam"
}

remove_node() {
	kctl delete node "${NODE_NAME}" --ignore-not-found --wait=false >/dev/null 2>&1 || true
}

cmd_down() {
	need_root down
	local start=${SECONDS}
	[[ -d "${RUN_DIR}" ]] || { log "nothing to take down (no ${RUN_DIR})"; return 0; }
	step "delete the node's pods" delete_pods
	step "stop kubelet" stop_component kubelet
	step "stop containers" stop_containers
	step "stop containerd" stop_component containerd
	step "stop kube-scheduler" stop_component kube-scheduler
	step "remove node ${NODE_NAME}" remove_node
	step "unmount under ${RUN_DIR}" unmount_all
	step "remove kubepods cgroups" remove_cgroups
	step "remove KUBE-* iptables chains" remove_iptables
	step "restore sysctls" restore_sysctls
	step "remove bridge ${BRIDGE}" remove_bridge
	log "node down in $((SECONDS - start))s (the control plane stays: hack/kube.sh stop)"
}

# ---------------------------------------------------------------- images

# cmd_load imports a podman image into the node's containerd.
cmd_load() {
	local ref=${1:-$("${HACK}/image.sh" name)} start=${SECONDS}
	running containerd >/dev/null || die "containerd is not running; run: $0 up"
	log "importing ${ref} ..."
	"${HACK}/image.sh" podman save --format docker-archive "${ref}" | ctr_ images import - >/dev/null
	log "imported ${ref} in $((SECONDS - start))s"
}

# ---------------------------------------------------------------- status

cmd_status() {
	local c pid rc=0
	for c in containerd kube-scheduler kubelet; do
		if pid=$(running "${c}"); then
			echo "${c}: running pid=${pid} log=$(log_file "${c}")"
		else
			echo "${c}: stopped"
			rc=3
		fi
	done
	((rc == 0)) && node_ready && echo "node ${NODE_NAME}: Ready"
	return "${rc}"
}

print_env() {
	cat <<ENV
KUBECONFIG=${ADMIN_KUBECONFIG}
KUBECTL=${KUBECTL_BIN}
NODE_NAME=${NODE_NAME}
NODE_IP=${NODE_IP}
NODE_APISERVER=${SERVER_URL#https://}
NODE_TAINT=${NODE_TAINT}
ENV
}

cmd_env() { print_env | sed 's/^/export /'; }

main() {
	local cmd=${1:-}
	[[ -n "${cmd}" ]] || die "missing command (build|up|down|load|status|check|env|ctr)"
	shift
	case "${cmd}" in
	build) cmd_build "$@" ;;
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	load) cmd_load "$@" ;;
	status) cmd_status "$@" ;;
	check) cmd_check "$@" ;;
	env) cmd_env "$@" ;;
	ctr) ctr_ "$@" ;;
	*) die "unknown command ${cmd}" ;;
	esac
}

main "$@"
